// One judge toward a client, for tasks: a 2026-07-28 task's result and its input requests are
// judged however they reach the client (issue 47, defects 1 and 2). Against the real binary, a
// 2026-07-28 task server written at the wire level (tests/js/lib/task-server-v2.mjs, its
// messages checked against ext-tasks' own schemas) and a real HTTP decision service:
//   - a result the decision hook withholds at tasks/get is withheld too from the
//     notifications/tasks a listen on the task is pushed;
//   - an input request the policy (or the hook at serverRequest) refuses never reaches the
//     client, fetched (tasks/get's inputRequests) or pushed (a listen's notifications/tasks),
//     and the client's tasks/update answering it never reaches the upstream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { eventually, modernRequest, openEventStream, post, startDecisionService, startGate, startTaskServerV2 } from './lib/index.mjs';

const MODERN = '2026-07-28';
const EXTENSION = 'io.modelcontextprotocol/tasks';

/** The body and headers of a 2026-07-28 request that declares the tasks extension. */
const CAPABILITIES = { extensions: { [EXTENSION]: {} }, sampling: {}, elicitation: {} };
function envelope(method, params, id = 7) {
  const { body, headers } = modernRequest(method, params, { id, capabilities: CAPABILITIES });
  return [body, headers];
}

async function modern(gate, method, params) {
  const res = await post(gate.url, ...envelope(method, params));
  assert.equal(res.status, 200, `${method}: HTTP ${res.status} ${res.text}`);
  return res;
}

/** A listen through gate, read frame by frame: { next(): the next message, close() }. */
async function openListen(gate, taskIds) {
  return openEventStream(gate.url, ...envelope('subscriptions/listen', { notifications: { taskIds } }));
}

/** A task of `name` made through gate: its id. */
async function mint(gate, name, args) {
  const r = await modern(gate, 'tools/call', { name, arguments: args });
  const taskId = r.json?.result?.taskId;
  assert.ok(taskId, r.text);
  return taskId;
}

/** A listen on `taskId`, acknowledged with it, and held by gate at the owner. */
async function listenTo(gate, v2, taskId) {
  const listen = await openListen(gate, [taskId]);
  const ack = (await listen.next()).json;
  assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack.params.notifications, { taskIds: [taskId] });
  await eventually(() => [...v2.listens].some((l) => l.taskIds.has(taskId)), { what: "gate's listen at the owner holding the task" });
  return listen;
}

describe('a task result the decision hook withholds, fetched or pushed', { timeout: 90_000 }, () => {
  let v2;
  let hook;
  let gate;
  let schemas;

  before(async () => {
    schemas = await import('@modelcontextprotocol/ext-tasks/core/v2');
    [v2, hook] = await Promise.all([
      startTaskServerV2({ inputTool: true }),
      startDecisionService((d) => {
        if (d.stage === 'result') return { decision: 'deny', reason: 'reports stay inside' };
        if (d.stage === 'serverRequest') return { decision: 'deny', reason: 'no questions from tasks' };
        return { decision: 'allow' };
      }),
    ]);
    gate = await startGate({
      config: {
        upstreams: [{ id: 't', url: v2.url, namespace: 't', protocol: MODERN }],
        policy: { defaultDecision: 'allow', rules: [], decisionHook: { url: hook.url, stages: ['call', 'result', 'serverRequest'], include: ['result'] } },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([v2?.stop(), hook?.stop()]);
  });

  test('a listen on the task hears it failed -31042, never its result (tasks/get of it is withheld too)', { timeout: 30_000 }, async () => {
    const taskId = await mint(gate, 't__report', { topic: 'salaries' });
    const listen = await listenTo(gate, v2, taskId);
    try {
      v2.finish(taskId);
      const news = await listen.next();
      assert.doesNotMatch(news.text, /report on salaries/, 'the withheld result never reached the listener');
      const pushed = schemas.TaskStatusNotificationV2Schema.parse(news.json);
      assert.equal(pushed.params.taskId, taskId);
      assert.equal(pushed.params.status, 'failed');
      assert.equal(pushed.params.error.code, -31042);
      assert.match(pushed.params.error.message, new RegExp(`the decision hook denied the result of task ${taskId} on t: reports stay inside`));
      assert.equal(pushed.params._meta['io.modelcontextprotocol/subscriptionId'], 7);
      const asked = hook.of('result').at(-1);
      assert.equal(asked.method, 'tasks/get', 'asked as a tasks/get of the task would be');
      assert.equal(asked.name, taskId);
      assert.match(JSON.stringify(asked.result), /report on salaries/);
    } finally {
      listen.close();
    }
    const fetched = await modern(gate, 'tasks/get', { taskId });
    assert.equal(fetched.json.error?.code, -31042, fetched.text);
    assert.doesNotMatch(fetched.text, /report on salaries/);
  });

  test('an input request the hook denies at serverRequest is withheld from tasks/get and from a listen', { timeout: 30_000 }, async () => {
    const taskId = await mint(gate, 't__consult', { ask: 'sampling' });
    const fetched = await modern(gate, 'tasks/get', { taskId });
    assert.equal(fetched.json.error?.code, -31042, fetched.text);
    assert.match(fetched.json.error.message, /the decision hook denied sampling\/createMessage from upstream t to this client: no questions from tasks/);
    assert.doesNotMatch(fetched.text, /the secret question|inputRequests/);
    assert.equal(hook.of('serverRequest').at(-1).method, 'sampling/createMessage');

    const listen = await listenTo(gate, v2, taskId);
    try {
      v2.askAgain(taskId);
      const news = await listen.next();
      assert.doesNotMatch(news.text, /the secret question|inputRequests/);
      const pushed = schemas.TaskStatusNotificationV2Schema.parse(news.json);
      assert.equal(pushed.params.status, 'failed');
      assert.equal(pushed.params.error.code, -31042);
    } finally {
      listen.close();
    }
  });
});

describe('a task input request the policy refuses, fetched, pushed or answered', { timeout: 90_000 }, () => {
  let v2;
  let gate;
  let schemas;

  before(async () => {
    schemas = await import('@modelcontextprotocol/ext-tasks/core/v2');
    v2 = await startTaskServerV2({ inputTool: true });
    gate = await startGate({
      config: {
        upstreams: [{ id: 't', url: v2.url, namespace: 't', protocol: MODERN }],
        policy: {
          defaultDecision: 'deny',
          rules: [
            { id: 'tools', allow: [{ server: 't', methods: ['tools/call'], names: ['report', 'consult'] }] },
            { id: 'elicit', allow: [{ server: 't', methods: ['elicitation/create'] }] },
          ],
        },
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await v2?.stop();
  });

  test('tasks/get of a task asking what no rule grants is -31042, and tasks/update answering it never reaches the upstream', { timeout: 30_000 }, async () => {
    const taskId = await mint(gate, 't__consult', { ask: 'sampling' });
    const fetched = await modern(gate, 'tasks/get', { taskId });
    assert.equal(fetched.json.error?.code, -31042, fetched.text);
    assert.match(fetched.json.error.message, /policy denied sampling\/createMessage from upstream t to this client/);
    assert.doesNotMatch(fetched.text, /the secret question|inputRequests/);

    const answer = { model: { role: 'assistant', content: { type: 'text', text: 'the answer' }, model: 'm' } };
    const updated = await modern(gate, 'tasks/update', { taskId, inputResponses: answer });
    assert.equal(updated.json.error?.code, -31042, updated.text);
    assert.match(updated.json.error.message, /policy denied sampling\/createMessage from upstream t to this client/);
    assert.deepEqual(v2.tasks.get(taskId).updates, [], 'the answer never reached the upstream');
    assert.equal(v2.requests.filter((r) => r.body.method === 'tasks/update').length, 0);
    const events = await gate.waitForAudit((ev) => ev.some((e) => e.method === 'tasks/update'));
    assert.equal(events.find((e) => e.method === 'tasks/update').outcome, 'denied');
  });

  test('a listen on that task hears it failed -31042, never the request', { timeout: 30_000 }, async () => {
    const taskId = await mint(gate, 't__consult', { ask: 'sampling' });
    const listen = await listenTo(gate, v2, taskId);
    try {
      v2.askAgain(taskId);
      const news = await listen.next();
      assert.doesNotMatch(news.text, /the secret question|inputRequests/);
      const pushed = schemas.TaskStatusNotificationV2Schema.parse(news.json);
      assert.equal(pushed.params.taskId, taskId);
      assert.equal(pushed.params.status, 'failed');
      assert.equal(pushed.params.error.code, -31042);
      assert.match(pushed.params.error.message, /policy denied sampling\/createMessage from upstream t to this client/);
    } finally {
      listen.close();
    }
  });

  test('an input request a rule grants reaches the client fetched and pushed, and its answer the upstream', { timeout: 30_000 }, async () => {
    const taskId = await mint(gate, 't__consult', { ask: 'elicitation' });
    const fetched = await modern(gate, 'tasks/get', { taskId });
    const got = schemas.GetTaskResultV2Schema.parse(fetched.json.result);
    assert.equal(got.status, 'input_required');
    assert.equal(got.inputRequests.model.method, 'elicitation/create');
    const listen = await listenTo(gate, v2, taskId);
    try {
      v2.askAgain(taskId);
      const pushed = schemas.TaskStatusNotificationV2Schema.parse((await listen.next()).json);
      assert.equal(pushed.params.status, 'input_required');
      assert.equal(pushed.params.inputRequests.model.method, 'elicitation/create');
    } finally {
      listen.close();
    }
    const answer = { model: { action: 'accept', content: { name: 'alice' } } };
    const updated = await modern(gate, 'tasks/update', { taskId, inputResponses: answer });
    schemas.UpdateTaskResultV2Schema.parse(updated.json.result);
    assert.deepEqual(v2.tasks.get(taskId).updates, [answer]);
  });

  test('tasks/update answering a key the task does not ask now is refused -32602 naming it, and never reaches the upstream', { timeout: 30_000 }, async () => {
    const taskId = await mint(gate, 't__consult', { ask: 'elicitation' });
    const answer = {
      model: { action: 'accept', content: { name: 'alice' } },
      ghost: { model: 'm', role: 'assistant', content: { type: 'text', text: 'never judged' } },
    };
    const updated = await modern(gate, 'tasks/update', { taskId, inputResponses: answer });
    assert.equal(updated.json.error?.code, -32602, updated.text);
    assert.match(updated.json.error.message, /inputResponses answers "ghost", which the task does not ask now/);
    assert.deepEqual(v2.tasks.get(taskId).updates, [], 'the answer never reached the upstream');
    assert.equal(v2.requests.filter((r) => r.body.method === 'tasks/update' && r.body.params?.taskId === taskId).length, 0);
  });
});

// Loose ends of issue 47's judge toward a client: a pushed task is judged against the policy as
// it is now (a reload applies to every later push, not from the next listen on), and a listener
// hears its tasks' news in the order the upstream told it, a judged one never overtaken.
describe('a pushed task judged against the policy as reloaded', { timeout: 90_000 }, () => {
  let v2;
  let hook;
  let gate;
  let schemas;
  const configWith = (rules, decisionHook) => ({
    upstreams: [{ id: 't', url: v2.url, namespace: 't', protocol: MODERN }],
    policy: { defaultDecision: 'deny', rules, ...(decisionHook ? { decisionHook } : {}) },
  });
  const tools = { id: 'tools', allow: [{ server: 't', methods: ['tools/call'], names: ['report', 'consult'] }] };
  const elicit = { id: 'elicit', allow: [{ server: 't', methods: ['elicitation/create'] }] };

  before(async () => {
    schemas = await import('@modelcontextprotocol/ext-tasks/core/v2');
    [v2, hook] = await Promise.all([
      startTaskServerV2({ inputTool: true }),
      startDecisionService((d) => (d.stage === 'serverRequest' ? { decision: 'deny', reason: 'asked after the reload' } : { decision: 'allow' })),
    ]);
    gate = await startGate({ config: configWith([tools, elicit]) });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([v2?.stop(), hook?.stop()]);
  });

  test('after a reload takes the rule granting its input request away, a listen opened before hears the task failed -31042', { timeout: 30_000 }, async () => {
    const taskId = await mint(gate, 't__consult', { ask: 'elicitation' });
    const listen = await listenTo(gate, v2, taskId);
    try {
      v2.askAgain(taskId);
      const granted = schemas.TaskStatusNotificationV2Schema.parse((await listen.next()).json);
      assert.equal(granted.params.status, 'input_required', 'granted before the reload');
      await gate.reloaded(configWith([tools]));
      v2.askAgain(taskId);
      const news = await listen.next();
      assert.doesNotMatch(news.text, /who approves\?|inputRequests/, 'the reloaded policy refuses it');
      const pushed = schemas.TaskStatusNotificationV2Schema.parse(news.json);
      assert.equal(pushed.params.status, 'failed');
      assert.equal(pushed.params.error.code, -31042);
      assert.match(pushed.params.error.message, /policy denied elicitation\/create from upstream t to this client/);
    } finally {
      listen.close();
    }
    await gate.reloaded(configWith([tools, elicit]));
  });

  test('after a reload asks the decision hook at serverRequest, a listen opened before has its next push asked about', { timeout: 30_000 }, async () => {
    const taskId = await mint(gate, 't__consult', { ask: 'elicitation' });
    const listen = await listenTo(gate, v2, taskId);
    try {
      await gate.reloaded(configWith([tools, elicit], { url: hook.url, stages: ['serverRequest'] }));
      v2.askAgain(taskId);
      const news = await listen.next();
      assert.doesNotMatch(news.text, /who approves\?|inputRequests/, 'the hook the reload added refuses it');
      const pushed = schemas.TaskStatusNotificationV2Schema.parse(news.json);
      assert.equal(pushed.params.status, 'failed');
      assert.match(pushed.params.error.message, /the decision hook denied elicitation\/create from upstream t to this client: asked after the reload/);
      assert.equal(hook.of('serverRequest').at(-1).method, 'elicitation/create');
    } finally {
      listen.close();
    }
    await gate.reloaded(configWith([tools, elicit]));
  });
});

describe("a listener's task news in the upstream's order, a judged one never overtaken", { timeout: 90_000 }, () => {
  let v2;
  let hook;
  let gate;

  before(async () => {
    [v2, hook] = await Promise.all([
      startTaskServerV2(),
      // A task's result judged (asked as a tasks/get of it) waits for the test: the judgement
      // of a pushed result is pending while later news of the same listener comes in.
      startDecisionService((d) => (d.stage === 'result' && d.method === 'tasks/get' ? { hold: true } : { decision: 'allow' })),
    ]);
    gate = await startGate({
      config: {
        upstreams: [{ id: 't', url: v2.url, namespace: 't', protocol: MODERN }],
        policy: { defaultDecision: 'allow', rules: [], decisionHook: { url: hook.url, stages: ['result'], include: ['result'] } },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([v2?.stop(), hook?.stop()]);
  });

  test('a working task told after a completed one being judged reaches the listener after it', { timeout: 30_000 }, async () => {
    const [judged, plain, marker] = [
      await mint(gate, 't__report', { topic: 'first' }),
      await mint(gate, 't__report', { topic: 'second' }),
      await mint(gate, 't__report', { topic: 'marker' }),
    ];
    const listen = await openListen(gate, [judged, plain]);
    const other = await openListen(gate, [marker]);
    try {
      assert.equal((await listen.next()).json.method, 'notifications/subscriptions/acknowledged');
      assert.equal((await other.next()).json.method, 'notifications/subscriptions/acknowledged');
      // One stream at the owner holds all three: what the upstream tells on it comes in order.
      await eventually(
        () => {
          const holding = [...v2.listens].filter((l) => [judged, plain, marker].some((t) => l.taskIds.has(t)));
          return holding.length === 1 && [judged, plain, marker].every((t) => holding[0].taskIds.has(t));
        },
        { what: "gate's one listen at the owner holding the three tasks" },
      );
      v2.finish(judged);
      await eventually(() => hook.of('result').some((d) => d.name === judged), { what: 'the hook asked about the pushed result' });
      v2.askAgain(plain); // no result, nothing to judge
      v2.askAgain(marker);
      // The other listener heard the marker: gate has read the plain news before it.
      assert.equal((await other.next()).json.params.taskId, marker);
      hook.release({ decision: 'allow' });
      const first = (await listen.next()).json;
      const second = (await listen.next()).json;
      assert.deepEqual(
        [first.params.taskId, second.params.taskId],
        [judged, plain],
        'the judged news first, as the upstream told it',
      );
      assert.equal(first.params.status, 'completed');
      assert.equal(second.params.status, 'working');
    } finally {
      listen.close();
      other.close();
    }
  });
});

// Egress is the judge's too: a task's result carries its resource links' icons from gate's
// origin, an icon of another origin left out, as the call's own answer would (icons.test.mjs),
// whether the client fetches it (tasks/get, the result inline) or a listen is pushed it.
describe("a task's result carries its icons from gate, fetched or pushed", { timeout: 90_000 }, () => {
  let v2;
  let gate;

  before(async () => {
    v2 = await startTaskServerV2();
    gate = await startGate({ config: { upstreams: [{ id: 't', url: v2.url, namespace: 't', protocol: MODERN }] } });
  });

  after(async () => {
    await gate?.stop();
    await v2?.stop();
  });

  /** The resource link of a finished 'linked' report's content. */
  const linkOf = (result) => {
    const link = result?.content?.find((c) => c.type === 'resource_link');
    assert.ok(link, JSON.stringify(result));
    return link;
  };
  const fromGate = (link) => {
    assert.equal(link.icons.length, 1, `the other origin's icon is left out: ${JSON.stringify(link)}`);
    assert.match(link.icons[0].src, /^\/icons\/t\/[0-9a-f]{32}$/, JSON.stringify(link));
  };

  test('tasks/get of a finished task names the icon from gate, never the upstream', async () => {
    const taskId = await mint(gate, 't__report', { topic: 'linked' });
    let got;
    await eventually(async () => {
      got = (await modern(gate, 'tasks/get', { taskId })).json;
      return got.result?.status === 'completed';
    }, { what: 'the task completed' });
    fromGate(linkOf(got.result.result));
    assert.doesNotMatch(JSON.stringify(got), /127\.0\.0\.1|tracker\.example/);
    // As the upstream wrote it: both icons, its own origin's among them.
    assert.equal(linkOf(v2.tasks.get(taskId)).icons.length, 2);
  });

  test('a listen pushed the finished task names the icon from gate', async () => {
    const taskId = await mint(gate, 't__report', { topic: 'linked' });
    const listen = await listenTo(gate, v2, taskId);
    try {
      v2.finish(taskId);
      const news = await listen.next();
      assert.equal(news.json.params.status, 'completed', news.text);
      fromGate(linkOf(news.json.params.result));
      assert.doesNotMatch(news.text, /127\.0\.0\.1|tracker\.example/);
    } finally {
      listen.close();
    }
  });
});
