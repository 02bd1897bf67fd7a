// The series names that PromQL expressions read, for checking that every series gate's
// dashboards and alerting rules name exists in a live /metrics (tests/js/monitoring.test.mjs).
//
//   seriesNames(expr)          the metric names an expression selects (a Set)
//   ruleExpressions(yamlText)  { group, alert, expr } of each rule of a Prometheus rules file
//   dashboardExpressions(d)    every query of a Grafana dashboard: its panels' and variables'
//   exposedNames(text)         the names of the samples of a /metrics exposition (a Set)
//
// No PromQL parser is at hand in the tests, so names are read the way PromQL's grammar places
// them: string literals, label matchers ({...}), ranges ([...]) and the label lists of by,
// without, on, ignoring, group_left and group_right are blanked first (they hold label names
// and values, not series); then an identifier is a series name unless it is a keyword or an
// operator word, or is followed by `(` (a function or an aggregation). A selector by
// {__name__=...} names no series this way: the expressions checked do not use one.

const KEYWORDS = new Set([
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'bool',
  'and', 'or', 'unless', 'atan2', 'inf', 'nan', 'start', 'end',
  // Aggregations, which may be written with their `by (...)` before the parenthesis.
  'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values',
  'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio',
]);

export function seriesNames(expr) {
  const s = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^{}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '$1()')
    .replace(/\boffset\s+-?[\w$]+/g, ' ')
    .replace(/@\s*[\w.$]+(\(\))?/g, ' ');
  const names = new Set();
  for (const m of s.matchAll(/(?<![\w:.$])[A-Za-z_:][\w:]*/g)) {
    const rest = s.slice(m.index + m[0].length);
    if (KEYWORDS.has(m[0]) || /^\s*\(/.test(rest)) continue;
    names.add(m[0]);
  }
  return names;
}

/**
 * The rules of a Prometheus rules file as written in config/prometheus: `- name:` starts a
 * group, `- alert:` or `- record:` a rule, and its `expr:` is on the line (`expr: a > 0`) or
 * a literal block below it (`expr: |`, the lines indented deeper than `expr:`).
 */
export function ruleExpressions(text) {
  const lines = text.split('\n');
  const rules = [];
  let group;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m;
    if ((m = /^\s*- name:\s*(\S+)/.exec(line))) group = m[1];
    else if ((m = /^\s*- (?:alert|record):\s*(\S+)/.exec(line))) rules.push({ group, alert: m[1] });
    else if ((m = /^(\s*)expr:\s*(.*)$/.exec(line))) {
      let expr = m[2];
      if (expr === '|' || expr === '|-') {
        const block = [];
        while (i + 1 < lines.length && (lines[i + 1].trim() === '' || lines[i + 1].search(/\S/) > m[1].length)) block.push(lines[++i].trim());
        expr = block.join(' ').trim();
      }
      rules.at(-1).expr = expr;
    }
  }
  return rules;
}

/** Every query of a dashboard: its panels' targets, and the selectors of its variables. */
export function dashboardExpressions(dashboard) {
  const exprs = [];
  const walk = (panels) => {
    for (const p of panels ?? []) {
      for (const t of p.targets ?? []) exprs.push(t.expr);
      walk(p.panels);
    }
  };
  walk(dashboard.panels);
  for (const v of dashboard.templating?.list ?? []) {
    const q = typeof v.query === 'object' ? v.query?.query : v.query;
    const m = /^label_values\((.*),\s*\w+\)$/.exec(q ?? '');
    if (m) exprs.push(m[1]);
    else if (v.type === 'query') exprs.push(q);
  }
  return exprs;
}

export function exposedNames(text) {
  const names = new Set();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][\w:]*)[{ ]/.exec(line);
    if (m) names.add(m[1]);
  }
  return names;
}
