/**
 * The report's one script, inline and pinned by its hash in the page's Content-Security-Policy:
 * no other script can run, whatever the input holds. It filters the diagnostics by module,
 * severity and text, and pages through large tables whose rows are embedded as JSON (so a
 * 20,000-host fleet is a small page). Without scripts the first page of each table still shows.
 */
import { createHash } from 'node:crypto';

export const SCRIPT = `(function(){
'use strict';
var $=function(s,r){return (r||document).querySelector(s)};
var all=function(s,r){return Array.prototype.slice.call((r||document).querySelectorAll(s))};
var search=$('#search'),module=$('#filter-module'),severity=$('#filter-severity');
function filter(){
  var q=(search&&search.value||'').toLowerCase(),m=module&&module.value||'',s=severity&&severity.value||'';
  all('#diagnostics tbody tr').forEach(function(tr){
    var ok=(!m||tr.getAttribute('data-module')===m)&&(!s||tr.getAttribute('data-severity')===s)&&(!q||tr.textContent.toLowerCase().indexOf(q)>=0);
    tr.hidden=!ok;
  });
  all('table[data-pages]').forEach(function(t){t.__render&&t.__render(0)});
}
// The same file name as pageName() in html.ts: one page per host under hosts/.
function hostHref(h){return 'hosts/'+h.replace(/[^A-Za-z0-9.-]|^\\./g,function(c){return '_'+c.codePointAt(0).toString(16)+'_'})+'.html'}
function text(v){return document.createTextNode(v==null?'':String(v))}
function cell(tr,v,cls){var td=document.createElement('td');if(cls)td.className=cls;td.appendChild(text(v));tr.appendChild(td);return td}
all('table[data-pages]').forEach(function(t){
  var data=JSON.parse($('#'+t.getAttribute('data-pages')).textContent);
  var size=Number(t.getAttribute('data-page-size'))||100,page=0,body=t.tBodies[0];
  var pager=document.createElement('div');pager.className='pager';
  var prev=document.createElement('button'),next=document.createElement('button'),label=document.createElement('span');
  prev.textContent='previous';next.textContent='next';pager.appendChild(prev);pager.appendChild(label);pager.appendChild(next);
  t.parentNode.parentNode.insertBefore(pager,t.parentNode);
  var note=t.parentNode.parentNode.querySelector('.nojs');if(note)note.hidden=true;
  function rows(){var q=(search&&search.value||'').toLowerCase();return q?data.rows.filter(function(r){return r[0].toLowerCase().indexOf(q)>=0}):data.rows}
  t.__render=function(p){
    var list=rows(),pages=Math.max(1,Math.ceil(list.length/size));page=Math.min(Math.max(0,p),pages-1);
    while(body.firstChild)body.removeChild(body.firstChild);
    list.slice(page*size,page*size+size).forEach(function(r){
      var tr=document.createElement('tr'),th=document.createElement('th');th.scope='row';
      var a=document.createElement('a');a.href=r[2]||hostHref(r[0]);a.appendChild(text(r[0]));th.appendChild(a);
      tr.appendChild(th);
      for(var i=0;i<r[1].length;i++){if(r[1].charAt(i)==='1')cell(tr,'\\u25cf','yes');else cell(tr,'','no')}
      body.appendChild(tr);
    });
    label.textContent='page '+(page+1)+' of '+pages+' ('+list.length+' rows)';prev.disabled=page===0;next.disabled=page>=pages-1;
  };
  prev.onclick=function(){t.__render(page-1)};next.onclick=function(){t.__render(page+1)};
  t.__render(0);
});
[search,module,severity].forEach(function(e){e&&e.addEventListener('input',filter)});
})();`;

/** The CSP source that allows exactly {@link SCRIPT}. */
export const SCRIPT_HASH = `'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`;
