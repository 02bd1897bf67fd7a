// Reading gate's /metrics exposition in tests.

/**
 * The value of the first series of `name` whose labels include `labels`, or `missing` when
 * there is none.
 */
export function metric(text, name, labels, missing = 0) {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    // A series without labels: `name value`.
    if (want.length === 0 && line.startsWith(`${name} `)) return Number(line.slice(name.length + 1));
    if (!line.startsWith(`${name}{`)) continue;
    const have = line.slice(name.length + 1, line.indexOf('}')).split(',');
    if (want.every((w) => have.includes(w))) return Number(line.slice(line.indexOf('}') + 1));
  }
  return missing;
}
