import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelwiseError } from '../../src/base/errors.js';
import { loadConfig } from '../../src/anchor/index.js';
import { formatSelector } from '../../src/selector/index.js';
import { parseGoDuration } from '../../src/anchor/duration.js';
import { resolveScope } from '../../src/anchor/config.js';

function errorOf(env: Record<string, string>): LabelwiseError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof LabelwiseError, `expected LabelwiseError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a configuration error');
}

test('anchord scenario: a selector wins over ANCHORD_PROJECT, with the warning and the active line', () => {
  const { config, notices } = loadConfig({
    ANCHORD_LABEL_SELECTOR: ' team = infra , env=prod',
    ANCHORD_PROJECT: 'ix-mailcow',
  });
  assert.equal(config.scopeSource, 'selector');
  assert.equal(formatSelector(config.scope), 'env=prod,team=infra');
  assert.deepEqual(notices, [
    {
      level: 'warn',
      msg: 'ANCHORD_LABEL_SELECTOR set; ANCHORD_PROJECT ignored',
      attrs: { ignored_project: 'ix-mailcow' },
    },
    {
      level: 'info',
      msg: 'backend label selector active',
      attrs: { selector: 'env=prod,team=infra' },
    },
  ]);
});

test('anchord scenario: without a selector the scope is the Compose project (legacy mode)', () => {
  const { config, notices } = loadConfig({ ANCHORD_PROJECT: 'ix-vaultwarden' });
  assert.equal(config.scopeSource, 'project');
  assert.equal(formatSelector(config.scope), 'com.docker.compose.project=ix-vaultwarden');
  assert.deepEqual(notices, []);
});

test('COMPOSE_PROJECT_NAME is the default project; ANCHORD_PROJECT wins over it', () => {
  assert.equal(config({ COMPOSE_PROJECT_NAME: 'a' }), 'com.docker.compose.project=a');
  assert.equal(
    config({ COMPOSE_PROJECT_NAME: 'a', ANCHORD_PROJECT: 'b' }),
    'com.docker.compose.project=b',
  );
  function config(env: Record<string, string>): string {
    return formatSelector(loadConfig(env).config.scope);
  }
});

test('a selector also ignores the Compose project name, and says so', () => {
  const { notices } = loadConfig({ ANCHORD_LABEL_SELECTOR: 'a=1', COMPOSE_PROJECT_NAME: 'x' });
  assert.deepEqual(
    notices.map((n) => [n.msg, n.attrs]),
    [
      [
        'ANCHORD_LABEL_SELECTOR set; ANCHORD_PROJECT ignored',
        { ignored_project: 'x', from: 'COMPOSE_PROJECT_NAME' },
      ],
      ['backend label selector active', { selector: 'a=1' }],
    ],
  );
});

test('both ANCHORD_EXT_NETWORK and ANCHORD_EXT_IFACE set: the interface is ignored, with a notice', () => {
  const { notices } = loadConfig({
    ANCHORD_PROJECT: 'p',
    ANCHORD_EXT_NETWORK: 'dmz',
    ANCHORD_EXT_IFACE: 'eth1',
  });
  assert.deepEqual(
    notices.filter((n) => n.level === 'warn').map((n) => [n.msg, n.attrs]),
    [
      [
        'ANCHORD_EXT_NETWORK set; ANCHORD_EXT_IFACE ignored',
        { ext_network: 'dmz', ignored_iface: 'eth1' },
      ],
    ],
  );
  assert.deepEqual(loadConfig({ ANCHORD_PROJECT: 'p', ANCHORD_EXT_NETWORK: 'dmz' }).notices, []);
});

test('an equality selector that reads like another operator warns, and prints its pairs quoted', () => {
  const cases: [string, RegExp][] = [
    [
      'role!=ldap',
      /key "role!" ends in "!": .*claims containers labelled "role!"="ldap", not those whose "role" is other than "ldap"/,
    ],
    ['role=(a|b)', /value "\(a\|b\)" looks like a set/],
    ['role=ld.*', /value "ld\.\*" looks like a pattern/],
    ['role==ldap', /value "=ldap" starts with "="/],
  ];
  for (const [selector, message] of cases) {
    const { config, notices } = loadConfig({ ANCHORD_LABEL_SELECTOR: selector });
    const warning = notices.find((n) => n.msg === 'label selector is equality only');
    assert.match(String(warning?.attrs['detail']), message, selector);
    assert.match(String(warning?.attrs['selector']), /^"role!?"="/, selector);
    // The key is kept as anchord keeps it: the anchor claims what anchord would.
    assert.equal(config.scope.requirements.length, 1);
  }
  assert.deepEqual(
    loadConfig({ ANCHORD_LABEL_SELECTOR: 'role=ldap,tier=a-b.c_d' }).notices.map((n) => n.msg),
    ['backend label selector active'],
  );
});

test('defaults', () => {
  const { config } = loadConfig({ ANCHORD_PROJECT: 'p' });
  assert.equal(config.extIface, 'eth0');
  assert.equal(config.extNetwork, undefined);
  assert.equal(config.sharedNetwork, undefined);
  assert.equal(config.pollIntervalMs, 30_000);
  assert.equal(config.logLevel, 'info');
  assert.deepEqual(config.metrics, { host: '127.0.0.1', port: 9090 });
  assert.deepEqual(config.docker, { kind: 'unix', socketPath: '/var/run/docker.sock' });
});

const errors: {
  name: string;
  env: Record<string, string>;
  code: string;
  env_: string;
  message?: string;
}[] = [
  {
    name: 'anchord: missing =',
    env: { ANCHORD_LABEL_SELECTOR: 'nokey' },
    code: 'SELECTOR_EQUALITY_MISSING_EQUALS',
    env_: 'ANCHORD_LABEL_SELECTOR',
    message: `label selector entry "nokey" missing '='`,
  },
  {
    name: 'anchord: conflicting duplicate key',
    env: { ANCHORD_LABEL_SELECTOR: 'a=1,a=2' },
    code: 'SELECTOR_EQUALITY_CONFLICT',
    env_: 'ANCHORD_LABEL_SELECTOR',
    message: `label selector has duplicate key "a" with conflicting values "1" and "2"`,
  },
  {
    name: 'no scope at all',
    env: {},
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_PROJECT',
    message:
      'ANCHORD_PROJECT (or COMPOSE_PROJECT_NAME) must be set unless ANCHORD_LABEL_SELECTOR is',
  },
  {
    name: 'poll interval zero',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_POLL_INTERVAL: '0' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_POLL_INTERVAL',
  },
  {
    name: 'poll interval garbage',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_POLL_INTERVAL: '5 minutes' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_POLL_INTERVAL',
  },
  {
    name: 'poll interval negative',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_POLL_INTERVAL: '-5s' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_POLL_INTERVAL',
  },
  {
    name: 'unknown mode',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_MODE: 'magic' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_MODE',
    message:
      'unknown mode "magic" (want "network-anchor", "service-anchor", "doctor", "external-rebinder", or "wrap-rebinder")',
  },
  {
    name: 'service-anchor is not the network anchor configuration',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_MODE: 'service-anchor' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_MODE',
  },
  {
    name: 'anchord mode not implemented here',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_MODE: 'dhcp-refresh' },
    code: 'ANCHOR_MODE_NOT_SUPPORTED',
    env_: 'ANCHORD_MODE',
  },
  {
    name: 'dhcp-refresh with an invalid back-off cap',
    env: {
      ANCHORD_PROJECT: 'p',
      ANCHORD_ADDRESS_MODE: 'dhcp-refresh',
      ANCHORD_DHCP_BACKOFF_MAX: 'soon',
    },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_DHCP_BACKOFF_MAX',
  },
  {
    name: 'dhcp-refresh with an invalid hostname',
    env: {
      ANCHORD_PROJECT: 'p',
      ANCHORD_ADDRESS_MODE: 'dhcp-refresh',
      ANCHORD_DHCP_HOSTNAME: 'a b',
    },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_DHCP_HOSTNAME',
  },
  {
    name: 'dhcp-refresh with two IPv4 gateway pins',
    env: {
      ANCHORD_PROJECT: 'p',
      ANCHORD_ADDRESS_MODE: 'dhcp-refresh',
      ANCHORD_EXT_GATEWAY_IP: '10.0.0.1,10.0.0.2',
    },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_EXT_GATEWAY_IP',
  },
  {
    name: 'unknown address mode',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_ADDRESS_MODE: 'gibberish' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_ADDRESS_MODE',
  },
  {
    name: 'inbound masquerade switch',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_MASQUERADE_INBOUND: 'sometimes' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_MASQUERADE_INBOUND',
  },
  {
    name: 'hostile interface name',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_EXT_IFACE: 'eth0"; flush ruleset' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_EXT_IFACE',
  },
  {
    name: 'metrics without port',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_METRICS_ADDR: '127.0.0.1' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_METRICS_ADDR',
  },
  {
    name: 'metrics port too large',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_METRICS_ADDR: ':70000' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_METRICS_ADDR',
  },
  {
    name: 'poll interval below 100 ms',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_POLL_INTERVAL: '99ms' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_POLL_INTERVAL',
    message: 'poll interval "99ms" is out of range (100ms to 24 days)',
  },
  {
    name: 'poll interval beyond what a Node.js timer holds',
    env: { ANCHORD_PROJECT: 'p', ANCHORD_POLL_INTERVAL: '600h' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'ANCHORD_POLL_INTERVAL',
    message: 'poll interval "600h" is out of range (100ms to 24 days)',
  },
  {
    name: 'DOCKER_HOST ssh',
    env: { ANCHORD_PROJECT: 'p', DOCKER_HOST: 'ssh://me@host' },
    code: 'ANCHOR_INVALID_CONFIG',
    env_: 'DOCKER_HOST',
  },
];

for (const row of errors) {
  test(`config error: ${row.name}`, () => {
    const error = errorOf(row.env);
    assert.equal(error.code, row.code);
    assert.equal(error.source.env, row.env_);
    if (row.message !== undefined) assert.equal(error.message, row.message);
  });
}

test('an unknown log level falls back to info with a warning (anchord falls back too)', () => {
  const { config, notices } = loadConfig({ ANCHORD_PROJECT: 'p', ANCHORD_LOG_LEVEL: 'chatty' });
  assert.equal(config.logLevel, 'info');
  assert.deepEqual(notices, [
    {
      level: 'warn',
      msg: 'unknown log level; using info',
      attrs: { value: 'chatty', env: 'ANCHORD_LOG_LEVEL' },
    },
  ]);
});

test('the mode argument wins over ANCHORD_MODE; masquerade is off unless asked', () => {
  const { config } = loadConfig(
    { ANCHORD_PROJECT: 'p', ANCHORD_MODE: 'service-anchor', ANCHORD_ADDRESS_MODE: 'slaac-ra-only' },
    { modeArgument: 'network-anchor' },
  );
  assert.equal(config.mode, 'network-anchor');
  assert.equal(config.masqueradeInbound, false);
  assert.equal(
    loadConfig({ ANCHORD_PROJECT: 'p', ANCHORD_MASQUERADE_INBOUND: 'TRUE' }).config
      .masqueradeInbound,
    true,
  );
  // `:9090` listens on every address of both families, as Go's listener does.
  assert.deepEqual(
    loadConfig({ ANCHORD_PROJECT: 'p', ANCHORD_METRICS_ADDR: ':9090' }).config.metrics,
    {
      host: '',
      port: 9090,
    },
  );
});

test('poll interval bounds: 100ms and 24 days are accepted', () => {
  assert.equal(
    loadConfig({ ANCHORD_PROJECT: 'p', ANCHORD_POLL_INTERVAL: '100ms' }).config.pollIntervalMs,
    100,
  );
  assert.equal(
    loadConfig({ ANCHORD_PROJECT: 'p', ANCHORD_POLL_INTERVAL: '576h' }).config.pollIntervalMs,
    576 * 3_600_000,
  );
});

test('valid variants of every variable', () => {
  const { config } = loadConfig({
    ANCHORD_LABEL_SELECTOR: 'x=',
    ANCHORD_EXT_NETWORK: 'dmz',
    ANCHORD_SHARED_NETWORK: 'proj_transit',
    ANCHORD_POLL_INTERVAL: '2m30s',
    ANCHORD_MODE: 'network-anchor',
    ANCHORD_ADDRESS_MODE: 'bootstrap',
    ANCHORD_LOG_LEVEL: 'DEBUG',
    ANCHORD_METRICS_ADDR: '[::1]:9100',
    DOCKER_HOST: 'tcp://socket-proxy:2375',
  });
  assert.equal(formatSelector(config.scope), 'x in ()');
  assert.equal(config.scopeText, 'x=');
  assert.equal(config.extNetwork, 'dmz');
  assert.equal(config.sharedNetwork, 'proj_transit');
  assert.equal(config.pollIntervalMs, 150_000);
  assert.equal(config.logLevel, 'debug');
  assert.deepEqual(config.metrics, { host: '::1', port: 9100 });
  assert.deepEqual(config.docker, { kind: 'tcp', host: 'socket-proxy', port: 2375 });
  assert.equal(
    loadConfig({ ANCHORD_PROJECT: 'p', ANCHORD_METRICS_ADDR: '' }).config.metrics,
    undefined,
  );
});

const durations: [string, number | undefined][] = [
  ['30', 30_000],
  ['30s', 30_000],
  ['2m30s', 150_000],
  ['1h', 3_600_000],
  ['1.5s', 1500],
  ['500ms', 500],
  ['', undefined],
  ['1.5', undefined],
  ['s', undefined],
  ['10x', undefined],
  ['-1s', undefined],
];
for (const [text, want] of durations) {
  test(`duration ${JSON.stringify(text)}`, () => assert.equal(parseGoDuration(text), want));
}

test('resolveScope: the scope alone, naming the variable it came from, as loadConfig uses it', () => {
  const cases: [Record<string, string>, string, string][] = [
    [{ ANCHORD_LABEL_SELECTOR: 'a=1', ANCHORD_PROJECT: 'p' }, 'a=1', 'ANCHORD_LABEL_SELECTOR'],
    [
      { ANCHORD_LABEL_SELECTOR: ' ', ANCHORD_PROJECT: 'p' },
      'com.docker.compose.project=p',
      'ANCHORD_PROJECT',
    ],
    [{ COMPOSE_PROJECT_NAME: 'c' }, 'com.docker.compose.project=c', 'COMPOSE_PROJECT_NAME'],
    // Other variables do not matter to the scope, however wrong they are.
    [
      { ANCHORD_PROJECT: 'p', ANCHORD_POLL_INTERVAL: 'soon', ANCHORD_MODE: 'rebinder' },
      'com.docker.compose.project=p',
      'ANCHORD_PROJECT',
    ],
  ];
  for (const [env, scope, variable] of cases) {
    const resolved = resolveScope(env);
    assert.equal(formatSelector(resolved.scope), scope, JSON.stringify(env));
    assert.equal(resolved.variable, variable, JSON.stringify(env));
  }
  const full = loadConfig({ ANCHORD_LABEL_SELECTOR: 'a=1', ANCHORD_PROJECT: 'p' });
  assert.deepEqual(
    full.notices,
    resolveScope({ ANCHORD_LABEL_SELECTOR: 'a=1', ANCHORD_PROJECT: 'p' }).notices,
  );
  assert.equal(errorOf({ ANCHORD_LABEL_SELECTOR: 'x' }).code, 'SELECTOR_EQUALITY_MISSING_EQUALS');
  assert.throws(() => resolveScope({}), { code: 'ANCHOR_INVALID_CONFIG' });
});
