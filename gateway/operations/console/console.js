"use strict";
// The gate console: a read-only view of GET /api/federation, refreshed every 5 s. With auth
// required it asks for a Bearer token (kept in this tab's sessionStorage only).
(() => {
  const $ = (id) => document.getElementById(id);
  const TOKEN = "gate-console-token";
  const say = (text, error) => { const s = $("status"); s.textContent = text; s.className = error ? "error" : ""; };
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  const facts = (dl, pairs) => {
    dl.replaceChildren();
    for (const [k, v] of pairs) { dl.append(el("dt", "", k), el("dd", "", v === undefined || v === null ? "—" : String(v))); }
  };

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

  function render(f) {
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

    $("upstreams").replaceChildren(...f.upstreams.map((u, i) => {
      const li = el("li", states[i]);
      li.dataset.id = u.id;
      li.append(el("span", "state", states[i]), el("div", "id", u.id));
      if (u.server) li.append(identity(u.server));
      const meta = el("div", "meta");
      meta.append(el("span", "badge", u.source), el("span", "badge", `credential: ${u.credential}`), el("span", "badge", `protocol: ${u.protocol}`));
      li.append(meta);
      const health = u.health || {};
      li.append(el("div", "meta", `${u.namespace ? "namespace " + u.namespace + " · " : ""}breaker ${u.breaker || "?"}${health.latencyMs !== undefined ? " · " + health.latencyMs + " ms" : ""}`));
      if (health.error) li.append(el("div", "meta", health.error));
      if (u.endpoints) li.append(el("div", "meta", `${u.endpoints.filter((e) => e.inRotation).length} of ${u.endpoints.length} replicas in rotation`));
      return li;
    }));

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
    $("policy").querySelector("tbody").replaceChildren(...(p.rules || []).map((r) => {
      const tr = el("tr");
      tr.append(el("td", "", r.id), el("td", "", r.subjects.length ? r.subjects.join(", ") : "anyone"),
        el("td", "", r.allow.map((a) => `${a.server}${a.methods ? " " + a.methods.join("/") : ""}${a.names ? " " + a.names.join(",") : ""}`).join("; ")));
      return tr;
    }));
    $("federation").hidden = false;
  }

  async function refresh() {
    const headers = {};
    const token = sessionStorage.getItem(TOKEN);
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
      const res = await fetch("/api/federation", { headers });
      if (res.status === 401) { $("signin").hidden = false; say(token ? "The token was not accepted." : "Sign in to see the federation.", !!token); return; }
      if (!res.ok) { say(`/api/federation answered ${res.status}`, true); return; }
      $("signin").hidden = true;
      render(await res.json());
      say("");
    } catch (e) {
      say(`gate does not answer: ${e.message}`, true);
    }
  }

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
      refresh();
    });
    await refresh();
    setInterval(refresh, 5000);
  }
  start();
})();
