#include "hooks/console_page.hpp"

namespace gate::hooks {

std::string_view console_page() {
    static constexpr std::string_view page = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gate-hooks console</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 2em; color: #222; }
  table { border-collapse: collapse; margin: 1em 0; width: 100%; }
  th, td { border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
  .error { color: #b00; } .ok { color: #070; }
  code { font-size: 12px; }
  section { margin-bottom: 2em; }
</style>
</head>
<body>
<h1>gate-hooks</h1>
<form id="signin">
  <label>Access token <input id="token" type="password" autocomplete="off" size="40"></label>
  <button type="submit">Sign in</button>
</form>
<p id="status" role="status"></p>
<section id="hooks-section" hidden>
  <h2>Webhooks</h2>
  <table id="hooks"><thead><tr><th>Id</th><th>Event</th><th>URL</th><th>Enabled</th><th></th></tr></thead><tbody></tbody></table>
  <div id="history" hidden>
    <h3>Deliveries of <code id="history-of"></code></h3>
    <table id="deliveries"><thead><tr><th>Delivery</th><th>Event</th><th>Status</th><th>Attempts</th><th>Code</th><th>Error</th></tr></thead><tbody></tbody></table>
  </div>
</section>
<section id="dlq-section" hidden>
  <h2>Dead-letter queue</h2>
  <p id="dlq-stats"></p>
  <table id="dlq"><thead><tr><th>Delivery</th><th>Webhook</th><th>Event</th><th>Attempts</th><th>Error</th><th>Dead since</th><th></th></tr></thead><tbody></tbody></table>
</section>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const say = (text, cls) => { const s = $("status"); s.textContent = text; s.className = cls || ""; };
async function call(method, path, body) {
  const headers = { "Authorization": "Bearer " + sessionStorage.getItem("gate-hooks-token") };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const json = text ? JSON.parse(text) : {};
  if (!res.ok) throw new Error(json.error ? json.error.message : res.status + " " + res.statusText);
  return json;
}
function cell(row, text) { const td = row.insertCell(); td.textContent = text === null || text === undefined ? "" : String(text); return td; }
function button(td, label, onclick) { const b = document.createElement("button"); b.textContent = label; b.onclick = onclick; td.appendChild(b); return b; }
async function loadHooks() {
  const { webhooks } = await call("GET", "/webhooks");
  const body = $("hooks").tBodies[0]; body.replaceChildren();
  for (const w of webhooks) {
    const row = body.insertRow(); row.dataset.id = w.id;
    cell(row, w.id); cell(row, w.event); cell(row, w.url);
    const on = cell(row, ""); const box = document.createElement("input"); box.type = "checkbox"; box.checked = w.enabled;
    box.setAttribute("aria-label", "enabled " + w.id);
    box.onchange = async () => { try { await call("PATCH", "/webhooks/" + w.id, { enabled: box.checked }); say(w.id + (box.checked ? " enabled" : " disabled"), "ok"); } catch (e) { say(e.message, "error"); } await loadHooks(); };
    on.appendChild(box); if (w.disabled_reason) on.appendChild(document.createTextNode(" " + w.disabled_reason));
    const actions = cell(row, "");
    button(actions, "Test", async () => { try { const r = await call("POST", "/webhooks/" + w.id + "/test"); say(r.success ? "test delivered: " + r.status + " " + r.status_text : "test failed: " + (r.error || r.status + " " + r.status_text), r.success ? "ok" : "error"); } catch (e) { say(e.message, "error"); } });
    button(actions, "History", () => loadHistory(w.id));
  }
}
async function loadHistory(id) {
  const { deliveries } = await call("GET", "/webhooks/" + id + "/deliveries");
  $("history").hidden = false; $("history-of").textContent = id;
  const body = $("deliveries").tBodies[0]; body.replaceChildren();
  for (const d of deliveries) { const row = body.insertRow(); cell(row, d.id); cell(row, d.event_type); cell(row, d.status); cell(row, d.attempts); cell(row, d.response_code); cell(row, d.error); }
}
async function loadDlq() {
  // The count is of the entries shown (one read, so a retry finishing between two reads
  // cannot leave "1 failed deliveries" over an empty table); past a page, the stats say.
  const { entries } = await call("GET", "/webhook-deliveries/dlq?limit=200");
  const total = entries.length < 200 ? entries.length : (await call("GET", "/webhook-deliveries/dlq/stats")).total;
  $("dlq-stats").textContent = total + " failed deliveries";
  const body = $("dlq").tBodies[0]; body.replaceChildren();
  for (const d of entries) {
    const row = body.insertRow(); row.dataset.id = d.id;
    cell(row, d.id); cell(row, d.webhook_id); cell(row, d.event_type); cell(row, d.attempts); cell(row, d.error || (d.response_code ? "HTTP " + d.response_code : "")); cell(row, d.dead_at);
    button(cell(row, ""), "Retry", async () => { try { const r = await call("POST", "/webhook-deliveries/dlq/" + d.webhook_id + "/retry"); say("retrying " + r.retried + " deliveries of " + d.webhook_id, "ok"); } catch (e) { say(e.message, "error"); } });
  }
}
async function refresh() {
  try { await loadHooks(); await loadDlq(); $("hooks-section").hidden = false; $("dlq-section").hidden = false; }
  catch (e) { say(e.message, "error"); }
}
$("signin").onsubmit = (ev) => { ev.preventDefault(); sessionStorage.setItem("gate-hooks-token", $("token").value); say("signed in", "ok"); refresh(); };
$("refresh") && ($("refresh").onclick = refresh);
if (sessionStorage.getItem("gate-hooks-token")) refresh();
setInterval(() => { if (sessionStorage.getItem("gate-hooks-token")) loadDlq().catch(() => {}); }, 2000);
</script>
</body>
</html>
)html";
    return page;
}

} // namespace gate::hooks
