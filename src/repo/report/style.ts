/** The report's one stylesheet: inline, no web fonts, readable from a phone to a wide screen. */
export const STYLE = `
:root{--fg:#1d2330;--muted:#5b6472;--line:#d5d9e0;--head:#f1f3f7;--err:#b3261e;--warn:#8a5a00;--ok:#13723a;--link:#1d4ed8}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:80rem;padding:1rem 1.25rem 3rem;color:var(--fg)}
h1{font-size:1.5rem;margin:.5rem 0 .2rem}h2{margin-top:2rem;font-size:1.2rem}h3{font-size:1rem;margin:1.2rem 0 .4rem}
.meta{color:var(--muted);margin:.1rem 0}.meta code{color:var(--fg)}
nav{display:flex;flex-wrap:wrap;gap:.4rem .9rem;margin:.8rem 0;padding:.5rem 0;border-bottom:1px solid var(--line)}
nav a{color:var(--link);text-decoration:none}
.controls{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.6rem 0}
.controls input,.controls select{font:inherit;padding:.3rem .45rem;border:1px solid var(--line);border-radius:4px}
.controls input[type=search]{flex:1 1 14rem}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
thead th{background:var(--head);position:sticky;top:0}
.ok{color:var(--ok);font-weight:600}.fail{color:var(--err);font-weight:600}
td.error{color:var(--err);font-weight:600}td.warning{color:var(--warn);font-weight:600}
td.yes{text-align:center;color:var(--link)}td.no{background:#fafbfc}
.empty,.note{color:var(--muted)}code,pre{font-family:ui-monospace,monospace;font-size:.92em}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;border:1px solid var(--line)}
.count{display:inline-block;min-width:1.6rem;text-align:center;background:var(--head);border-radius:1rem;padding:0 .4rem}
.pager{display:flex;gap:.5rem;align-items:center;margin:.3rem 0}.pager button{font:inherit;padding:.2rem .6rem}
.graph{max-width:100%;height:auto;border:1px solid var(--line)}
.add{color:var(--ok)}.del{color:var(--err)}
[hidden]{display:none!important}
@media (max-width:40rem){body{padding:.6rem .7rem 2rem;font-size:15px}h1{font-size:1.25rem}
 th,td{padding:.25rem .35rem}.hide-narrow{display:none}
 table.cards,table.cards tbody,table.cards tr,table.cards td,table.cards th{display:block;width:auto}
 table.cards thead{display:none}
 table.cards tr{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.4rem .6rem}
 table.cards td,table.cards th{border:0;padding:.1rem 0;overflow-wrap:anywhere}
 table.cards td::before,table.cards th::before{content:attr(data-label) " ";color:var(--muted);font-weight:400;font-size:.85em}
 table.cards td:empty{display:none}
 table.cards td.message{margin-top:.2rem}
 table.cards td.message::before{display:block}}
`;
