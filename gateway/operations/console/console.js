"use strict";
// The gate console: a read-only view of GET /api/federation and /api/traffic, refreshed every
// 5 s, and of /api/catalog, refreshed every minute or on demand; and the viewer's own
// connections at user-account upstreams (/api/connections), which it may disconnect. With auth required it asks
// for a Bearer token (kept in this tab's sessionStorage only). Everything is built with DOM
// calls and classes: the page's policy allows no inline style or script.
(() => {
  const $ = (id) => document.getElementById(id);
  const TOKEN = "gate-console-token";
  const SVG = "http://www.w3.org/2000/svg";
  const ERRORS = ["error", "upstream_down"];
  const REFUSALS = ["denied", "rate_limited", "unauthenticated", "forbidden", "budget_exhausted"];
  const say = (text, error) => { const s = $("status"); s.textContent = text; s.className = error ? "error" : ""; };
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  const facts = (dl, pairs) => {
    dl.replaceChildren();
    for (const [k, v] of pairs) { dl.append(el("dt", "", k), el("dd", "", v === undefined || v === null ? "—" : String(v))); }
  };
  const round = (v, digits = 1) => (v === null || v === undefined ? "—" : Number(v.toFixed(digits)).toString());
  const clock = (ms) => new Date(ms).toLocaleTimeString();

  // up: answering, breaker closed; degraded: answering but the breaker is not closed, or some
  // replica is out of rotation; down: not answering or the breaker is open.
  const stateOf = (u) => {
    const status = u.health ? u.health.status : "unknown";
    if (status !== "up" || u.breaker === "open") return "down";
    if (u.breaker === "half-open" || (u.endpoints || []).some((e) => e.inRotation === false)) return "degraded";
    return "up";
  };

  // The upstream as its handshake named itself (text only); its first icon when gate serves it
  // from this page's origin (the page's CSP allows no other).
  const identity = (s) => {
    const line = el("div", "meta server");
    const icon = (s.icons || []).find((i) => typeof i.src === "string" && new URL(i.src, location.href).origin === location.origin);
    if (icon) { const img = el("img"); img.src = icon.src; img.alt = ""; img.width = 16; img.height = 16; line.append(img); }
    line.append(el("span", "", `${s.title || s.name || "?"}${s.version ? " " + s.version : ""}${s.protocolVersion ? " · MCP " + s.protocolVersion : ""}`));
    return line;
  };

  const ownerLine = (u) => {
    const line = el("div", "meta owner");
    if (u.owner) {
      const o = u.owner;
      line.append(el("span", "", `owner: ${[o.team, o.org].filter(Boolean).join(" · ") || "—"}${o.contact ? " (" + o.contact + ")" : ""}`));
    }
    for (const [k, v] of Object.entries(u.labels || {})) line.append(el("span", "badge label", `${k}=${v}`));
    return line;
  };

  // ---- traffic: one series as rates, shares and latencies per bucket ----
  const sumOf = (series, names, i) => names.reduce((n, name) => n + ((series.outcomes[name] || [])[i] || 0), 0);
  function measures(series, bucketSeconds) {
    const n = series.requests.length;
    const seconds = (i) => (i === n - 1 ? Math.max(series.currentSeconds, 1) : bucketSeconds);
    const share = (names) => series.requests.map((r, i) => (r ? (100 * sumOf(series, names, i)) / r : null));
    // "Now": the last full bucket and the current one.
    const recent = series.requests[n - 2] + series.requests[n - 1];
    const recentOf = (names) => sumOf(series, names, n - 2) + sumOf(series, names, n - 1);
    // A gate that started lately has nothing to show before: its charts start at its first
    // request (two minutes at least), not 15 minutes back.
    const first = series.requests.findIndex((r) => r > 0);
    const from = Math.max(0, Math.min(first < 0 ? n : first, n - 12));
    const span = (values) => values.slice(from);
    return {
      minutes: ((n - from) * bucketSeconds) / 60,
      rate: span(series.requests.map((r, i) => r / seconds(i))),
      errors: span(share(ERRORS)),
      refusals: span(share(REFUSALS)),
      p50: span(series.p50Ms),
      p99: span(series.p99Ms),
      now: {
        rate: recent / (bucketSeconds + Math.max(series.currentSeconds, 1)),
        errors: recent ? (100 * recentOf(ERRORS)) / recent : 0,
        refusals: recent ? (100 * recentOf(REFUSALS)) / recent : 0,
      },
    };
  }

  // A small chart: one line per series of values (null: no value there), scaled to the largest.
  function chart(cls, label, lines, floor) {
    const W = 180, H = 36;
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
    svg.classList.add("chart", cls);
    const all = lines.flatMap((l) => l.values.filter((v) => v !== null));
    const max = Math.max(floor, ...all);
    for (const line of lines) {
      const n = line.values.length;
      let d = "", pen = false, last = null;
      line.values.forEach((v, i) => {
        if (v === null) { pen = false; return; }
        const x = (i * W) / (n - 1), y = H - 1 - (v / max) * (H - 2);
        d += `${pen ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)} `;
        pen = true;
        last = [x, y];
      });
      const path = document.createElementNS(SVG, "path");
      path.setAttribute("d", d.trim() || `M0 ${H - 1}`);
      path.classList.add("line", line.cls);
      svg.append(path);
      if (last) { // the latest value, visible even when it stands alone
        const dot = document.createElementNS(SVG, "circle");
        dot.setAttribute("cx", Math.min(last[0], W - 2).toFixed(1));
        dot.setAttribute("cy", last[1].toFixed(1));
        dot.setAttribute("r", "2");
        dot.classList.add("dot", line.cls);
        svg.append(dot);
      }
    }
    return svg;
  }

  function trafficBlock(series, bucketSeconds) {
    const box = el("div", "traffic");
    if (!series) return box;
    const m = measures(series, bucketSeconds);
    const w = series.window;
    const figure = (cls, text, svg) => { const f = el("figure", cls); f.append(svg, el("figcaption", "", text)); return f; };
    box.append(
      figure("rate", `${round(m.now.rate, 2)} req/s`, chart("chart-rate", `Requests per second over the last ${round(m.minutes)} minutes; now ${round(m.now.rate, 2)}`, [{ cls: "rate", values: m.rate }], 0.1)),
      figure("shares", `${round(m.now.errors)}% errors · ${round(m.now.refusals)}% refused`, chart("chart-shares", `Errors and refusals in percent of requests; now ${round(m.now.errors)}% and ${round(m.now.refusals)}%`, [{ cls: "errors", values: m.errors }, { cls: "refusals", values: m.refusals }], 5)),
      figure("latency", `p50 ${round(w.p50Ms)} ms · p99 ${round(w.p99Ms)} ms`, chart("chart-latency", `p50 and p99 latency in milliseconds; over the window ${round(w.p50Ms)} and ${round(w.p99Ms)}`, [{ cls: "p50", values: m.p50 }, { cls: "p99", values: m.p99 }], 1)),
    );
    const outcomes = Object.entries(w.outcomes).map(([k, v]) => `${k} ${v}`).join(" · ");
    box.append(el("div", "meta totals", `${w.requests} requests in 15 min${outcomes ? ": " + outcomes : ""}`),
      el("div", "meta span", `charts: the last ${round(m.minutes)} min`));
    return box;
  }

  // ---- cards: kept across refreshes, so a focused link keeps its focus ----
  const cards = new Map();
  function card(id) {
    let c = cards.get(id);
    if (!c) {
      const li = el("li");
      li.dataset.id = id;
      const body = el("div", "body");
      const link = el("a", "to-catalog", "Catalog");
      link.href = `#catalog-${id}`;
      link.setAttribute("aria-label", `Catalog of ${id}`);
      li.append(body, link);
      c = { li, body };
      cards.set(id, c);
    }
    return c;
  }

  function renderCards(f, states, traffic) {
    const byId = new Map(((traffic && traffic.upstreams) || []).map((t) => [t.id, t]));
    const list = $("upstreams");
    const wanted = f.upstreams.map((u, i) => {
      const c = card(u.id);
      c.li.className = states[i];
      const health = u.health || {};
      const parts = [el("span", "state", states[i]), el("div", "id", u.id)];
      if (u.server) parts.push(identity(u.server));
      if (u.owner || u.labels) parts.push(ownerLine(u));
      const meta = el("div", "meta");
      meta.append(el("span", "badge", u.source), el("span", "badge", `credential: ${u.credential}`), el("span", "badge", `protocol: ${u.protocol}`));
      parts.push(meta, el("div", "meta", `${u.namespace ? "namespace " + u.namespace + " · " : ""}breaker ${u.breaker || "?"}${health.latencyMs !== undefined ? " · " + health.latencyMs + " ms" : ""}`));
      if (health.error) parts.push(el("div", "meta", health.error));
      if (u.endpoints) parts.push(el("div", "meta", `${u.endpoints.filter((e) => e.inRotation).length} of ${u.endpoints.length} replicas in rotation`));
      const t = byId.get(u.id);
      parts.push(trafficBlock(t && t.series, traffic ? traffic.bucketSeconds : 10));
      c.body.replaceChildren(...parts);
      return c.li;
    });
    if (traffic && traffic.unrouted) {
      const c = card("");
      c.li.className = "unrouted";
      c.li.lastChild.hidden = true; // no catalog of its own
      c.body.replaceChildren(el("div", "id", "gate itself"), el("div", "meta", "requests no single upstream answered: lists, initialize, refusals before routing"), trafficBlock(traffic.unrouted, traffic.bucketSeconds));
      wanted.push(c.li);
    }
    for (const [id, c] of cards) if (!wanted.includes(c.li)) { c.li.remove(); cards.delete(id); }
    wanted.forEach((li, i) => { if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null); });
  }

  // Whose traffic: this instance's alone; a fleet's is on the Grafana dashboard.
  function renderInstance(traffic, f) {
    const i = traffic.instance || {};
    const who = `${i.host || "?"} (pid ${i.pid ?? "?"})`;
    $("instance").textContent = `instance ${who}`;
    const fleet = f.sharedState && f.sharedState.backend === "redis";
    $("instance-note").textContent = `The traffic, timeline and refusals are what this instance, ${who}, served since it started` +
      (fleet ? "; it is one instance of a fleet sharing Redis, and each instance counts only its own" : "") +
      ". For every instance together, use the Grafana dashboard gate ships (config/grafana/gate.json).";
  }

  function renderTimeline(traffic) {
    const items = [];
    for (const u of traffic.upstreams) for (const t of u.transitions) items.push({ id: u.id, ...t });
    items.sort((a, b) => b.atMs - a.atMs);
    const text = (t) => (t.kind === "breaker" ? `breaker ${t.from} → ${t.to}`
      : t.kind === "endpoint" ? `replica ${t.url} ${t.to === "out" ? "out of rotation" : "back in rotation"}`
      : "given up on: open until a reload");
    $("timeline").replaceChildren(...(items.length ? items.map((t) => {
      const li = el("li", `to-${t.to}`);
      const time = el("time", "", clock(t.atMs));
      time.dateTime = t.at;
      li.append(time, el("strong", "", t.id), el("span", "", text(t)));
      return li;
    }) : [el("li", "empty", "No breaker or replica has changed state since gate started.")]));
  }

  function renderRefusals(traffic) {
    const body = $("refusals").querySelector("tbody");
    if (!traffic.refusals.length) { const tr = el("tr", "empty"); const td = el("td", "", "None of your requests was refused lately."); td.colSpan = 6; tr.append(td); body.replaceChildren(tr); return; }
    body.replaceChildren(...traffic.refusals.map((r) => {
      const tr = el("tr");
      const time = el("time", "", clock(r.atMs));
      time.dateTime = r.at;
      const when = el("td");
      when.append(time);
      tr.append(when, el("td", "", r.method), el("td", "", r.name || "—"), el("td", "", r.upstream || "—"), el("td", `outcome ${r.outcome}`, r.outcome), el("td", "", r.ruleId || "—"));
      return tr;
    }));
  }

  // ---- catalog: rebuilt only when it changed, keeping which upstreams are open ----
  let catalogText = "";
  const hints = (a) => Object.entries(a || {}).filter(([k, v]) => v === true && k.endsWith("Hint")).map(([k]) => k.replace(/Hint$/, ""));
  function itemsTable(kind, items) {
    const wrap = el("div", "scroll");
    const table = el("table", `catalog ${kind}`);
    const cap = el("caption", "", `${kind} (${items.filter((i) => i.allowed).length} of ${items.length} allowed)`);
    const head = el("tr");
    for (const h of [kind === "resources" ? "URI" : "Name", "About", "You", "Rule"]) { const th = el("th", "", h); th.scope = "col"; head.append(th); }
    const thead = el("thead"); thead.append(head);
    const tbody = el("tbody");
    for (const it of items) {
      const tr = el("tr", it.allowed ? "allowed" : "denied");
      tr.dataset.name = it.uri || it.name;
      const about = el("td");
      if (it.title) about.append(el("div", "title", it.title));
      if (it.description) about.append(el("div", "meta", it.description));
      for (const h of hints(it.annotations)) about.append(el("span", "badge", h));
      const why = el("td", "rule");
      why.append(el("div", "", it.ruleId || "default"), el("div", "meta", it.reason));
      tr.append(el("td", "name", it.uri || it.name), about, el("td", "decision", it.allowed ? "allowed" : "denied"), why);
      tbody.append(tr);
    }
    table.append(cap, thead, tbody);
    wrap.append(table);
    return wrap;
  }

  function renderCatalog(c) {
    const text = JSON.stringify(c);
    if (text === catalogText) return;
    catalogText = text;
    const open = new Set([...document.querySelectorAll("#catalog details[open]")].map((d) => d.id));
    $("catalog").replaceChildren(...c.upstreams.map((u) => {
      const d = el("details");
      d.id = `catalog-${u.id}`;
      d.open = open.has(d.id) || location.hash === `#${d.id}`;
      const kinds = ["tools", "prompts", "resources"].filter((k) => u[k]);
      const count = kinds.map((k) => `${u[k].length} ${k}`).join(" · ");
      const own = u.listing === "caller";
      const about = own ? (!count ? "listed per caller: not listed for you" : `${count} — your own listing${u.unlisted ? ", in part" : ""}`)
        : count || "not listed yet";
      d.append(el("summary", "", `${u.id} — ${about}`));
      // An upstream that takes each caller's credential has no list of gate's: what shows is
      // the viewer's own, listed for this read with the viewer's token, or why not.
      if (own) d.append(el("p", "listing", "This upstream takes each caller's own credential, so gate has no list of it for everyone: this is what your token lists, fetched just now and kept nowhere; another caller may be served other items."));
      if (own && u.unlisted) d.append(el("p", "unlisted", `Not listed for you: ${u.unlisted}. Sign in with a token this upstream accepts to see what it serves you.`));
      for (const k of kinds) if (u[k].length) d.append(itemsTable(k, u[k]));
      return d;
    }));
  }

  function renderFederation(f, traffic) {
    $("version").textContent = `${f.gateway.version} · ${f.gateway.mode} · snapshot ${f.gateway.snapshot}`;
    $("updated").textContent = `updated ${new Date().toLocaleTimeString()}`;
    const states = f.upstreams.map(stateOf);
    const up = states.filter((s) => s === "up").length;
    const verdict = $("verdict");
    const n = f.upstreams.length;
    verdict.textContent = `${up} of ${n} upstream${n === 1 ? "" : "s"} up`;
    verdict.className = up === n ? "ok" : up === 0 ? "down" : "degraded";
    const bar = $("bar");
    bar.replaceChildren(...states.map((s) => el("span", s)));
    bar.setAttribute("aria-label", verdict.textContent);
    renderCards(f, states, traffic);

    const d = f.discovery;
    facts($("discovery"), d.configured
      ? [["source", d.url], ["every", `${d.intervalMs} ms`], ["discovered", d.discovered], ["last poll", d.lastOutcome], ["failing", d.failing], ["problem", d.lastProblem]]
      : [["configured", "no"]]);
    const g = f.governance;
    facts($("governance"), [["requests/min", g.requestsPerMinute], ["per principal/min", g.perPrincipalPerMinute], ["budget", g.budget ? `${g.budget.upstreamCalls} per ${g.budget.period}` : undefined]]);
    facts($("operations"), [["audit sinks", f.audit.sinks.join(", ") || "none"], ["traces", f.tracing.enabled ? `${f.tracing.serviceName} → ${f.tracing.endpoint}` : "off"], ["shared state", `${f.sharedState.backend}${f.sharedState.up ? "" : " (not answering)"}`]]);
    const v = f.viewer;
    facts($("viewer"), [["principal", v.authenticated ? v.principal : "anonymous"], ["tenant", v.tenant], ["tenant limits", v.governance ? JSON.stringify(v.governance) : undefined]]);

    const p = f.policy;
    $("policy-default").textContent = p.enforced ? `Default decision: ${p.defaultDecision}` : "No policy: every caller may invoke everything.";
    $("policy").hidden = !p.enforced;
    // What a rule allows and what it denies: a deny-only rule refuses, it is not a rule that
    // does nothing.
    const entries = (list) => (list && list.length
      ? list.map((a) => `${a.server}${a.methods ? " " + a.methods.join("/") : ""}${a.names ? " " + a.names.join(",") : ""}`).join("; ")
      : "—");
    $("policy").querySelector("tbody").replaceChildren(...(p.rules || []).map((r) => {
      const tr = el("tr");
      tr.append(el("td", "", r.id), el("td", "", r.subjects.length ? r.subjects.join(", ") : "anyone"),
        el("td", "", entries(r.allow)), el("td", "", entries(r.deny)));
      return tr;
    }));
    $("federation").hidden = false;
    $("sections").hidden = false;
  }

  // ---- fetching ----
  const headers = () => { const t = sessionStorage.getItem(TOKEN); return t ? { Authorization: `Bearer ${t}` } : {}; };
  // The JSON of an API path; null after saying why not (a 401 shows the sign-in).
  async function read(path) {
    const res = await fetch(path, { headers: headers() });
    if (res.status === 401) {
      $("signin").hidden = false;
      say(sessionStorage.getItem(TOKEN) ? "The token was not accepted." : "Sign in to see the federation.", !!sessionStorage.getItem(TOKEN));
      return null;
    }
    if (!res.ok) { say(`${path} answered ${res.status}`, true); return null; }
    $("signin").hidden = true;
    return res.json();
  }

  async function refresh() {
    try {
      const f = await read("/api/federation");
      if (!f) return;
      const traffic = await read("/api/traffic");
      renderFederation(f, traffic);
      if (traffic) { renderInstance(traffic, f); renderTimeline(traffic); renderRefusals(traffic); say(""); }
      await refreshConnections(f);
      if (!catalogText) await refreshCatalog();
    } catch (e) {
      say(`gate does not answer: ${e.message}`, true);
    }
  }

  // Your connections (user-account upstreams): shown when gate has such upstreams (the API
  // answers), each with a button that disconnects it.
  function renderConnections(list) {
    $("connections-section").hidden = false;
    $("connections-link").hidden = false;
    $("connections-none").hidden = list.length > 0;
    $("connections").hidden = list.length === 0;
    $("connections").querySelector("tbody").replaceChildren(...list.map((c) => {
      const tr = el("tr");
      const button = el("button", "", "Disconnect");
      button.type = "button";
      button.setAttribute("aria-label", `Disconnect your account at ${c.upstream}`);
      button.addEventListener("click", () => disconnect(c.upstream));
      const action = el("td");
      action.append(button);
      tr.append(el("td", "", c.upstream), el("td", "", c.scope || "—"),
        el("td", "", new Date(c.connectedAt).toLocaleString()),
        el("td", "", c.expiresAt ? new Date(c.expiresAt).toLocaleString() : "—"),
        el("td", "", c.refreshable ? "yes" : "no"), action);
      return tr;
    }));
  }

  // Asked only when an upstream the viewer sees takes each user's account (the API is not
  // served otherwise).
  async function refreshConnections(f) {
    if (!(f.upstreams || []).some((u) => u.credential === "user-account")) return;
    const res = await fetch("/api/connections", { headers: headers() });
    if (res.ok) renderConnections((await res.json()).connections || []);
  }

  async function disconnect(upstream) {
    try {
      const res = await fetch(`/api/connections/${encodeURIComponent(upstream)}`, { method: "DELETE", headers: headers() });
      say(res.status === 204 ? `Disconnected your account at ${upstream}.` : `Disconnecting answered ${res.status}.`, res.status !== 204);
      const f = await read("/api/federation");
      if (f) await refreshConnections(f);
    } catch (e) {
      say(`gate does not answer: ${e.message}`, true);
    }
  }

  async function refreshCatalog() {
    try {
      const c = await read("/api/catalog");
      if (c) renderCatalog(c);
    } catch (e) {
      say(`gate does not answer: ${e.message}`, true);
    }
  }

  // A card's catalog link opens that upstream's entry.
  const openTarget = () => {
    const target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.tagName === "DETAILS") { target.open = true; target.querySelector("summary").focus(); }
  };

  async function start() {
    try {
      const hint = await (await fetch("/api/auth-hint")).json();
      $("issuer").textContent = hint.issuer || "the configured issuer";
      $("resource").textContent = hint.resource || "";
    } catch (e) { /* the federation call says what is wrong */ }
    $("signin").addEventListener("submit", (ev) => {
      ev.preventDefault();
      sessionStorage.setItem(TOKEN, $("token").value.trim());
      $("token").value = "";
      catalogText = "";
      refresh();
    });
    $("catalog-refresh").addEventListener("click", refreshCatalog);
    window.addEventListener("hashchange", openTarget);
    await refresh();
    setInterval(refresh, 5000);
    setInterval(refreshCatalog, 60000);
  }
  start();
})();
