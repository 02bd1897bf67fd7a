// What Grafana needs of a dashboard that its TypeScript types cannot say (dashboard-types.mjs
// checks the types; tests/js/dashboards.test.mjs runs both; issue 36):
//
//   ruleProblems(name, dashboard)   problems, each naming the dashboard and the panel, the
//                                   variable or `dashboard`
//
// - schemaVersion is an integer from Grafana 10.0's (38, the oldest release the files may name
//   in __requires) to the newest @grafana/schema describes (its default dashboard's).
// - Every panel has a unique integer id and a gridPos of integers inside the 24 columns, no two
//   panels overlap (a collapsed row's panels among themselves), a row spans the width, and each
//   panel type in use is listed in __requires (Grafana's import warns of a missing plugin by it).
// - Every datasource reference (panels', queries', variables', annotations') is an input of
//   __inputs, `${NAME}`, with that input's plugin as its type; the built-in annotation keeps
//   Grafana's own; a panel with queries names its datasource; every input is used.
// - Every variable a query, title or link reads ($v, ${v}, ${v:format}, [[v]]) is declared in
//   templating or built into Grafana; a variable reads only variables declared before it
//   (Grafana resolves them in order), and every declared variable is read somewhere.
import { defaultDashboard } from '@grafana/schema';

export const MIN_SCHEMA_VERSION = 38; // Grafana 10.0's
export const MAX_SCHEMA_VERSION = defaultDashboard.schemaVersion;
const COLUMNS = 24;
// Variables Grafana defines itself (docs: "Global variables").
const BUILT_IN = new Set([
  '__interval', '__interval_ms', '__rate_interval', '__rate_interval_ms', '__range', '__range_s', '__range_ms',
  '__from', '__to', '__dashboard', '__org', '__user', '__timezone', '__name', '__auto',
]);
const GRAFANA_ANNOTATIONS = { type: 'grafana', uid: '-- Grafana --' };

export const panelLabel = (p) => `panel ${p.id ?? '(no id)'} ${JSON.stringify(p.title ?? '')}`;

/** Every panel, a collapsed row's own panels included. */
export function allPanels(dashboard) {
  const out = [];
  for (const p of dashboard.panels ?? []) {
    out.push(p);
    if (p.type === 'row') out.push(...(p.panels ?? []));
  }
  return out;
}

/** Every string inside `value`, keys in `skip` left out. */
function strings(value, skip = new Set()) {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v, skip));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => (skip.has(k) ? [] : strings(v, skip)));
  return [];
}

/** The variable names a string reads; `$1` (a regex group) is none. */
function variablesRead(text) {
  const names = [];
  for (const m of text.matchAll(/\$(\w+)|\$\{(\w+)(?::[^}]*)?\}|\[\[(\w+)(?::[^\]]*)?\]\]/g)) {
    const name = m[1] ?? m[2] ?? m[3];
    if (!/^\d/.test(name)) names.push(name);
  }
  return names;
}

function schemaVersionProblems(d) {
  const v = d.schemaVersion;
  if (Number.isInteger(v) && v >= MIN_SCHEMA_VERSION && v <= MAX_SCHEMA_VERSION) return [];
  return [`dashboard: schemaVersion ${JSON.stringify(v)} is not an integer from ${MIN_SCHEMA_VERSION} (Grafana 10.0) ` +
    `to ${MAX_SCHEMA_VERSION} (the newest @grafana/schema describes)`];
}

const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

function gridProblems(p) {
  const g = p.gridPos;
  const where = panelLabel(p);
  if (!g || !['x', 'y', 'w', 'h'].every((k) => Number.isInteger(g[k])))
    return [`${where}: gridPos ${JSON.stringify(g)} is not four integers x, y, w, h`];
  const out = [];
  if (g.x < 0 || g.y < 0 || g.w < 1 || g.h < 1 || g.x + g.w > COLUMNS)
    out.push(`${where}: gridPos ${JSON.stringify(g)} is not inside the ${COLUMNS} columns (x + w <= ${COLUMNS}, w, h >= 1)`);
  if (p.type === 'row' && (g.x !== 0 || g.w !== COLUMNS || g.h !== 1))
    out.push(`${where}: a row's gridPos is x 0, w ${COLUMNS}, h 1, not ${JSON.stringify(g)}`);
  return out;
}

/** Overlaps among panels that share a grid: the dashboard's, or a collapsed row's. */
function overlapProblems(panels) {
  const out = [];
  const placed = panels.filter((p) => p.gridPos && ['x', 'y', 'w', 'h'].every((k) => Number.isInteger(p.gridPos[k])));
  placed.forEach((a, i) => {
    for (const b of placed.slice(0, i))
      if (overlap(a.gridPos, b.gridPos)) out.push(`${panelLabel(a)}: gridPos ${JSON.stringify(a.gridPos)} overlaps ${panelLabel(b)}`);
  });
  return out;
}

function panelProblems(d) {
  const out = [];
  const seen = new Map();
  for (const p of allPanels(d)) {
    if (!Number.isInteger(p.id) || p.id < 1) out.push(`${panelLabel(p)}: id is not a positive integer`);
    else if (seen.has(p.id)) out.push(`${panelLabel(p)}: id ${p.id} is also ${panelLabel(seen.get(p.id))}'s`);
    else seen.set(p.id, p);
    out.push(...gridProblems(p));
  }
  out.push(...overlapProblems(d.panels ?? []));
  for (const row of (d.panels ?? []).filter((p) => p.type === 'row')) out.push(...overlapProblems(row.panels ?? []));
  const required = new Set((d.__requires ?? []).filter((r) => r.type === 'panel').map((r) => r.id));
  for (const p of allPanels(d))
    if (p.type !== 'row' && !required.has(p.type)) out.push(`${panelLabel(p)}: panel type ${JSON.stringify(p.type)} is not in __requires`);
  return out;
}

/** Problems of one datasource reference `ref` found at `where`. */
function datasourceRefProblems(ref, where, inputs, used) {
  const m = typeof ref?.uid === 'string' ? ref.uid.match(/^\$\{(\w+)\}$/) : null;
  const input = m && inputs.get(m[1]);
  if (!input) return [`${where}: datasource ${JSON.stringify(ref)} is not \${NAME} of a datasource input of __inputs`];
  used.add(m[1]);
  if (ref.type !== input.pluginId) return [`${where}: datasource ${JSON.stringify(ref)} has not the type of input ${m[1]} (${input.pluginId})`];
  return [];
}

function datasourceProblems(d) {
  const inputs = new Map((d.__inputs ?? []).filter((i) => i.type === 'datasource').map((i) => [i.name, i]));
  const used = new Set();
  const out = [];
  const check = (ref, where) => out.push(...datasourceRefProblems(ref, where, inputs, used));
  for (const p of allPanels(d)) {
    const targets = p.targets ?? [];
    if (p.datasource !== undefined || targets.length) check(p.datasource, panelLabel(p));
    targets.forEach((t, i) => t.datasource !== undefined && check(t.datasource, `${panelLabel(p)}: targets[${i}]`));
  }
  for (const v of d.templating?.list ?? []) if (v.datasource !== undefined) check(v.datasource, `variable ${JSON.stringify(v.name)}`);
  for (const a of d.annotations?.list ?? []) {
    const builtIn = a.builtIn === 1 && JSON.stringify(a.datasource) === JSON.stringify(GRAFANA_ANNOTATIONS);
    if (!builtIn) check(a.datasource, `annotation ${JSON.stringify(a.name)}`);
  }
  // Anything else that reads an input, e.g. a link's URL.
  for (const s of strings(d, new Set(['__inputs']))) {
    for (const [, name] of s.matchAll(/\$\{(DS_\w+)\}/g)) {
      if (inputs.has(name)) used.add(name);
      else out.push(`dashboard: \${${name}} is not an input of __inputs`);
    }
  }
  for (const name of inputs.keys()) if (!used.has(name)) out.push(`dashboard: input ${name} of __inputs is used nowhere`);
  return out;
}

function variableProblems(d) {
  const vars = d.templating?.list ?? [];
  const inputs = new Set((d.__inputs ?? []).map((i) => i.name));
  const declared = new Set(vars.map((v) => v.name));
  const read = new Set();
  const out = [];
  const check = (texts, where, known) => {
    for (const name of texts.flatMap(variablesRead)) {
      if (BUILT_IN.has(name) || inputs.has(name)) continue;
      read.add(name);
      if (!known.has(name)) out.push(`${where}: $${name} is not a variable declared in templating${declared.has(name) ? ' before it' : ''}`);
    }
  };
  const before = new Set();
  for (const v of vars) {
    if (before.has(v.name)) out.push(`variable ${JSON.stringify(v.name)}: declared twice`);
    // Its values (current, options) are not references; its query, definition and regex are.
    check(strings({ query: v.query, definition: v.definition, regex: v.regex }), `variable ${JSON.stringify(v.name)}`, before);
    before.add(v.name);
  }
  for (const p of allPanels(d)) check(strings({ ...p, panels: [] }), panelLabel(p), declared);
  check(strings({ links: d.links, annotations: d.annotations, title: d.title }), 'dashboard', declared);
  for (const name of declared) if (!read.has(name)) out.push(`variable ${JSON.stringify(name)}: no query, title or link reads it`);
  return out;
}

export function ruleProblems(name, dashboard) {
  const problems = new Set([ // once each, however often a query repeats it
    ...schemaVersionProblems(dashboard),
    ...panelProblems(dashboard),
    ...datasourceProblems(dashboard),
    ...variableProblems(dashboard),
  ]);
  return [...problems].map((p) => `${name}: ${p}`);
}
