// Grafana dashboards checked against Grafana's own published dashboard model: the TypeScript
// types of @grafana/schema (generated from Grafana's CUE schema), with the TypeScript compiler
// in strict mode (tests/js/dashboards.test.mjs; issue 36).
//
//   typeProblems([{ name, dashboard }])   a Map of name -> problems, each naming the dashboard
//                                         and the panel (or `dashboard`) and the field's path
//   PANEL_SCHEMAS                         the panel types checked: Grafana's core panels that
//                                         @grafana/schema describes, by plugin id
//
// Each dashboard becomes a TypeScript module held in memory: the dashboard without its panels
// typed as `Dashboard`, then each panel as its own declaration, typed by its panel type (a row
// as `RowPanel`, the others as `Panel` with that plugin's `Options` and `FieldConfig`), so a
// diagnostic's position tells which panel it is about. JSON has no enums, so a string enum is
// checked by its members' values (`Json<T>`). A panel's options and its fields' custom config
// may leave out any field (`Saved<T>`): Grafana fills a missing option from the plugin's
// defaults when the panel loads; whatever is written must still have the schema's type.
import path from 'node:path';
import ts from 'typescript';

import { allPanels, panelLabel } from './dashboard-rules.mjs';
import { JS_DIR } from './paths.mjs';

const COMPOSABLE = '@grafana/schema/dist/esm/raw/composable';

/** Plugin id -> [the folder and the type module's prefix in @grafana/schema, has FieldConfig]. */
export const PANEL_SCHEMAS = {
  annolist: ['annotationslist', 'AnnotationsList', false],
  barchart: ['barchart', 'BarChart', true],
  bargauge: ['bargauge', 'BarGauge', false],
  candlestick: ['candlestick', 'Candlestick', true],
  canvas: ['canvas', 'Canvas', false],
  dashlist: ['dashboardlist', 'DashboardList', false],
  gauge: ['gauge', 'Gauge', false],
  geomap: ['geomap', 'Geomap', false],
  heatmap: ['heatmap', 'Heatmap', true],
  histogram: ['histogram', 'Histogram', true],
  logs: ['logs', 'Logs', false],
  news: ['news', 'News', false],
  nodeGraph: ['nodegraph', 'NodeGraph', false],
  piechart: ['piechart', 'PieChart', true],
  stat: ['stat', 'Stat', false],
  'state-timeline': ['statetimeline', 'StateTimeline', true],
  'status-history': ['statushistory', 'StatusHistory', true],
  table: ['table', 'Table', true],
  text: ['text', 'Text', false],
  timeseries: ['timeseries', 'TimeSeries', true],
  trend: ['trend', 'Trend', true],
  xychart: ['xychart', 'XYChart', true],
};

// The types every module shares. The Prometheus query and the export's envelope are not in
// @grafana/schema: the query is @grafana/prometheus's `Prometheus` data query (a package that
// brings React and Monaco along), its fields as that package declares them; the envelope
// (__inputs, __requires) is what Grafana's "Export for sharing externally" writes.
const PRELUDE = `import type * as S from '@grafana/schema';
import type * as V2 from '@grafana/schema/apis/dashboard.grafana.app/v2beta1';

/** A type as a JSON file holds it: a string enum by its members' values. */
type Json<T> = T extends string ? \`\${T}\`
  : T extends readonly (infer U)[] ? Json<U>[]
  : T extends object ? { [K in keyof T]: Json<T[K]> } : T;
/** Options as a panel saves them: each may be left out, Grafana fills it from the defaults. */
type Saved<T> = T extends string ? \`\${T}\`
  : T extends readonly (infer U)[] ? Saved<U>[]
  : T extends object ? { [K in keyof T]?: Saved<T[K]> } : T;

interface PromQuery extends S.DataQuery {
  expr: string;
  editorMode?: 'builder' | 'code';
  exemplar?: boolean;
  format?: 'time_series' | 'table' | 'heatmap';
  instant?: boolean;
  interval?: string;
  intervalFactor?: number;
  legendFormat?: string;
  range?: boolean;
}

interface Envelope {
  __inputs?: Array<{ name: string; label: string; description?: string; type: 'datasource' | 'constant';
                     pluginId?: string; pluginName?: string; value?: string }>;
  __elements?: Record<string, unknown>;
  __requires?: Array<{ type: 'grafana' | 'datasource' | 'panel' | 'app'; id: string; name: string; version: string }>;
}
// A query variable's \`definition\` (the text its list shows) is in the v2 schema's
// QueryVariableSpec, not in v1's VariableModel; Grafana 10 to 12 write it in v1 files too.
type Variable = Json<S.VariableModel> & { definition?: V2.QueryVariableSpec['definition'] };
type DashboardFile = Json<Omit<S.Dashboard, 'panels' | 'templating'>> & Envelope & {
  panels: [];
  templating?: { list?: Variable[] };
};

type FieldConfigOf<C> = Json<Omit<S.FieldConfigSource, 'defaults'>> & {
  defaults: Json<Omit<S.FieldConfig, 'custom'>> & { custom?: C };
};
type PanelOf<Type extends string, O, C> = Json<Omit<S.Panel, 'type' | 'options' | 'fieldConfig' | 'targets'>> & {
  type: Type;
  targets?: Json<PromQuery>[];
  options?: Saved<O>;
  fieldConfig?: FieldConfigOf<C>;
};
type Row = Json<S.RowPanel>;
`;

/** The panel's declared type, or null for a panel type @grafana/schema does not describe. */
function panelTypeName(type) {
  if (type === 'row') return 'Row';
  const schema = Object.hasOwn(PANEL_SCHEMAS, type) ? PANEL_SCHEMAS[type] : null;
  if (!schema) return null;
  const ns = `P_${schema[0]}`;
  return `PanelOf<${JSON.stringify(type)}, ${ns}.Options, ${schema[2] ? `Saved<${ns}.FieldConfig>` : 'Record<string, never>'}>`;
}

/** The module for one dashboard: its source and what each top-level declaration stands for. */
function moduleFor(dashboard) {
  const labels = new Map([['dashboard', 'dashboard']]);
  const problems = [];
  const imports = new Set();
  const decls = [`const dashboard: DashboardFile = ${JSON.stringify({ ...dashboard, panels: [] }, null, 1)};`];
  allPanels(dashboard).forEach((p, i) => {
    const typeName = panelTypeName(p.type);
    if (!typeName) {
      problems.push(`${panelLabel(p)}: type ${JSON.stringify(p.type)} is not a core Grafana panel type`);
      return;
    }
    if (p.type !== 'row') imports.add(PANEL_SCHEMAS[p.type]);
    const value = p.type === 'row' ? { ...p, panels: [] } : p;
    labels.set(`panel${i}`, panelLabel(p));
    decls.push(`const panel${i}: ${typeName} = ${JSON.stringify(value, null, 1)};`);
  });
  const importLines = [...imports].map(
    ([dir, prefix]) => `import type * as P_${dir} from '${COMPOSABLE}/${dir}/panelcfg/x/${prefix}PanelCfg_types.gen';`,
  );
  const variables = (dashboard.templating?.list ?? []).map((v) => v?.name);
  return { source: [PRELUDE, ...importLines, ...decls, ''].join('\n'), labels, problems, variables };
}

/** The JSON path of the node at `pos`, and the declaration that holds it. */
function locate(sourceFile, pos) {
  let node = sourceFile;
  for (;;) {
    const child = node.getChildren(sourceFile).find((c) => c.getStart(sourceFile) <= pos && pos < c.getEnd());
    if (!child) break;
    node = child;
  }
  const keys = [];
  let decl = null;
  for (let n = node; n; n = n.parent) {
    if (ts.isPropertyAssignment(n)) keys.unshift(n.name.text);
    else if (ts.isArrayLiteralExpression(n.parent ?? {}) && n.parent.elements.includes(n)) keys.unshift(`[${n.parent.elements.indexOf(n)}]`);
    else if (ts.isVariableDeclaration(n)) decl = n.name.text;
  }
  return { decl, path: keys.join('.').replace(/\.\[/g, '[') };
}

// The compiler spells a mismatched type out whole: its start is enough to act on.
const cap = (text) => text.replace(/'[^']{100,}'/g, (t) => `${t.slice(0, 80)}…'`);

/** `panel 11 "Requests": options.legend: `, or `variable "job": current: ` for templating's. */
function where(m, decl, at) {
  const v = decl === 'dashboard' && at.match(/^templating\.list\[(\d+)\]\.?(.*)$/);
  const name = v ? m.variables[Number(v[1])] : undefined;
  if (name !== undefined) return `variable ${JSON.stringify(name)}: ${v[2] ? `${v[2]}: ` : ''}`;
  return `${m.labels.get(decl) ?? 'typing'}: ${at ? `${at}: ` : ''}`;
}

const OPTIONS = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  types: [],
};

/** Type-checks every dashboard in one program (loading the types once); name -> problems. */
export function typeProblems(entries) {
  const host = ts.createCompilerHost(OPTIONS, true);
  const modules = new Map();
  entries.forEach(({ name, dashboard }, i) => {
    // In tests/js, so that '@grafana/schema' resolves to tests/js/node_modules.
    modules.set(path.join(JS_DIR, `dashboard-${i}.mts`), { name, ...moduleFor(dashboard) });
  });
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => modules.has(f) || fileExists.call(host, f);
  host.readFile = (f) => modules.get(f)?.source ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, ...rest) =>
    modules.has(f) ? ts.createSourceFile(f, modules.get(f).source, lang, true) : getSourceFile.call(host, f, lang, ...rest);
  const program = ts.createProgram([...modules.keys()], OPTIONS, host);
  const result = new Map(entries.map(({ name }) => [name, []]));
  for (const m of modules.values()) result.get(m.name).push(...m.problems.map((p) => `${m.name}: ${p}`));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    const m = d.file && modules.get(d.file.fileName);
    if (!m) {
      // Outside the dashboards' modules (the schema's own files): every dashboard is unchecked.
      for (const list of result.values()) list.push(`@grafana/schema: ${text}`);
      continue;
    }
    const { decl, path: at } = locate(d.file, d.start ?? 0);
    result.get(m.name).push(`${m.name}: ${where(m, decl, at)}${cap(text)}`);
  }
  return result;
}
