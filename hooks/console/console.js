// The gate-hooks console (docs/webhooks.md, "Console"). Every action is a call of the API with
// the signed-in organization's token, so every check of the API applies (the target guard, the
// secret's length, the organization's isolation); a refusal is shown next to the field it
// names. The token lives in the tab's sessionStorage only.
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "gate-hooks-token";
const POLL_MS = 2000;

let hooksShown = "";   // the webhooks as last rendered, to leave an unchanged table alone
let attemptsOf = null; // the webhook whose recent attempts are shown
let editing = null;    // the webhook in the edit, rotate or delete dialog
let opener = null;     // {id, action} of the control that opened a dialog: focus returns to it
let polling = false;
let hooksAsked = 0;    // loads of the webhooks started, and the latest one drawn: a poll that
let hooksDrawn = 0;    // answers after a newer load (a create's) must not draw the older list

function say(text, cls) {
  const s = $("status");
  s.textContent = text;
  s.className = cls || "";
}

async function call(method, path, body) {
  const headers = { Authorization: "Bearer " + sessionStorage.getItem(TOKEN_KEY) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = {};
  }
  if (!res.ok) {
    const e = json.error || {};
    throw Object.assign(new Error(e.message || res.status + " " + res.statusText), { status: res.status, code: e.code, field: e.field });
  }
  return json;
}

// A strong secret made here: 32 random bytes, base64url (49 characters with the prefix).
function newSecret() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return "whsec_" + btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function clearErrors(form) {
  for (const p of form.querySelectorAll("[data-error-for]")) p.textContent = "";
  for (const i of form.querySelectorAll("[aria-invalid]")) i.removeAttribute("aria-invalid");
}

// The API's refusal beside the field it names (or the form's own line), the field marked.
function showError(form, err) {
  clearErrors(form);
  const field = err.field || "";
  const slot = form.querySelector(`[data-error-for="${CSS.escape(field)}"]`) || form.querySelector('[data-error-for=""]');
  slot.textContent = err.message;
  const input = field ? form.querySelector(`[name="${CSS.escape(field)}"]`) : null;
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
  say(err.message, "error");
}

function cell(row, text, label) {
  const td = row.insertCell();
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (label) td.dataset.label = label;
  return td;
}

function button(parent, label, action, id, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.dataset.action = action;
  b.setAttribute("aria-label", label + " " + id);
  b.onclick = () => {
    opener = { id, action };
    onclick();
  };
  parent.appendChild(b);
  return b;
}

function refocusOpener() {
  if (!opener) return;
  const row = document.querySelector(`#hooks tr[data-id="${CSS.escape(opener.id)}"]`);
  const target = row?.querySelector(`[data-action="${CSS.escape(opener.action)}"]`) || document.querySelector("#hooks button");
  target?.focus();
}

function openDialog(id) {
  const d = $(id);
  const form = d.querySelector("form");
  if (form) clearErrors(form);
  d.showModal();
}

function renderHook(body, w) {
  const row = body.insertRow();
  row.dataset.id = w.id;
  cell(row, w.id, "Webhook");
  cell(row, w.event, "Event");
  cell(row, w.url, "URL");
  const on = cell(row, "", "Enabled");
  const box = document.createElement("input");
  box.type = "checkbox";
  box.checked = w.enabled;
  box.dataset.action = "enabled";
  box.setAttribute("aria-label", "enabled " + w.id);
  box.onchange = () => setEnabled(w, box.checked);
  on.appendChild(box);
  if (w.disabled_reason) on.append(" " + w.disabled_reason);
  cell(row, w.has_secret ? "yes" : "no", "Signed");
  const actions = cell(row, "", "Actions");
  actions.className = "actions";
  button(actions, "Edit", "edit", w.id, () => openEdit(w));
  button(actions, "Rotate secret", "rotate", w.id, () => openRotate(w));
  button(actions, "Test", "test", w.id, () => testHook(w));
  button(actions, "Attempts", "attempts", w.id, () => showAttempts(w.id));
  button(actions, "Delete", "delete", w.id, () => openDelete(w));
}

async function loadHooks(force) {
  const asked = ++hooksAsked;
  const { webhooks } = await call("GET", "/webhooks");
  if (asked < hooksDrawn) return;
  const text = JSON.stringify(webhooks);
  if (!force && text === hooksShown) return;
  // A poll leaves the table alone while the keyboard is in it, so focus is never lost.
  const inside = $("hooks").contains(document.activeElement);
  if (!force && inside) return;
  const focused = inside ? { id: document.activeElement.closest("tr")?.dataset.id, action: document.activeElement.dataset.action } : null;
  hooksShown = text;
  hooksDrawn = asked;
  const body = $("hooks").tBodies[0];
  body.replaceChildren();
  for (const w of webhooks) renderHook(body, w);
  $("hooks-empty").hidden = webhooks.length > 0;
  $("hooks").hidden = webhooks.length === 0;
  if (focused?.id) {
    const row = document.querySelector(`#hooks tr[data-id="${CSS.escape(focused.id)}"]`);
    row?.querySelector(`[data-action="${CSS.escape(focused.action || "")}"]`)?.focus();
  }
}

async function setEnabled(w, on) {
  try {
    await call("PATCH", "/webhooks/" + w.id, { enabled: on });
    // The status is said once the list shows the change, so "disabled" is true of the row.
    await loadHooks(true);
    say(w.id + (on ? " enabled" : " disabled"), "ok");
  } catch (e) {
    say(e.message, "error");
    await loadHooks(true);
  }
}

async function testHook(w) {
  say("testing " + w.id + " …", "");
  try {
    const r = await call("POST", "/webhooks/" + w.id + "/test");
    const text = r.success ? "test delivered: " + r.status + " " + r.status_text : "test failed: " + (r.error || r.status + " " + r.status_text);
    say(text, r.success ? "ok" : "error");
  } catch (e) {
    say(e.message, "error");
  }
}

function revealSecret(id, secret) {
  $("secret-of").textContent = id;
  $("secret-value").value = secret;
  $("secret-copied").textContent = "";
  $("secret-dialog").showModal();
  $("secret-value").select();
}

// Signed is the default, with a strong secret ready; unsigned is a choice made explicitly.
function showSigning() {
  const signed = $("create-signed").checked;
  $("create-secret-field").hidden = !signed;
  $("create-secret").disabled = !signed;
}

function resetCreate() {
  $("create").reset();
  $("create-secret").type = "password";
  $("create-secret").value = newSecret();
  showSigning();
}

async function create(ev) {
  ev.preventDefault();
  const form = $("create");
  clearErrors(form);
  const body = { event: $("create-event").value, url: $("create-url").value.trim() };
  if ($("create-signed").checked) {
    body.secret = $("create-secret").value;
    // Left empty, the API would make the webhook unsigned: not what was chosen.
    if (body.secret === "") return showError(form, { field: "secret", message: "secret is required for a signed webhook (Generate another makes a strong one), or choose Unsigned" });
  }
  try {
    const w = await call("POST", "/webhooks", body);
    resetCreate();
    await loadHooks(true);
    say("created " + w.id + " for " + w.event, "ok");
    opener = { id: w.id, action: "edit" };
    if (body.secret) revealSecret(w.id, body.secret);
  } catch (e) {
    showError(form, e);
  }
}

function openEdit(w) {
  editing = w;
  $("edit-id").textContent = w.id;
  $("edit-event").textContent = w.event;
  $("edit-url").value = w.url;
  $("edit-enabled").checked = w.enabled;
  openDialog("edit-dialog");
  $("edit-url").focus();
}

async function saveEdit(ev) {
  ev.preventDefault();
  const form = $("edit");
  clearErrors(form);
  const change = {};
  const url = $("edit-url").value.trim();
  if (url !== editing.url) change.url = url;
  if ($("edit-enabled").checked !== editing.enabled) change.enabled = $("edit-enabled").checked;
  if (Object.keys(change).length === 0) {
    $("edit-dialog").close();
    say("nothing changed", "");
    return;
  }
  try {
    const w = await call("PATCH", "/webhooks/" + editing.id, change);
    $("edit-dialog").close();
    await loadHooks(true);
    say("saved " + w.id, "ok");
    refocusOpener();
  } catch (e) {
    showError(form, e);
  }
}

function openRotate(w) {
  editing = w;
  $("rotate-id").textContent = w.id;
  $("rotate-secret").value = newSecret();
  openDialog("rotate-dialog");
  $("rotate-secret").focus();
}

async function rotate(ev) {
  ev.preventDefault();
  const form = $("rotate");
  clearErrors(form);
  const secret = $("rotate-secret").value;
  try {
    await call("PATCH", "/webhooks/" + editing.id, { secret });
    $("rotate-dialog").close();
    $("rotate-secret").value = "";
    await loadHooks(true);
    say("rotated the secret of " + editing.id, "ok");
    revealSecret(editing.id, secret);
  } catch (e) {
    showError(form, e);
  }
}

function openDelete(w) {
  editing = w;
  $("delete-id").textContent = w.id;
  $("delete-event").textContent = w.event;
  $("delete-url").textContent = w.url;
  openDialog("delete-dialog");
  $("delete").querySelector("[data-close]").focus();
}

async function remove(ev) {
  ev.preventDefault();
  const form = $("delete");
  try {
    await call("DELETE", "/webhooks/" + editing.id);
    $("delete-dialog").close();
    if (attemptsOf === editing.id) closeAttempts();
    await loadHooks(true);
    say("deleted " + editing.id, "ok");
    refocusOpener();
  } catch (e) {
    showError(form, e);
  }
}

const when = (iso) => (iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "—");

function renderAttemptLog(attempts) {
  const body = $("attempt-log").tBodies[0];
  body.replaceChildren();
  for (const a of attempts) {
    const row = body.insertRow();
    row.dataset.delivery = a.delivery_id;
    row.dataset.attempt = a.attempt;
    cell(row, a.delivery_id, "Delivery");
    cell(row, a.attempt, "Attempt");
    const code = cell(row, a.response_code ?? "—", "Code");
    if (a.response_code !== null) code.className = a.response_code >= 200 && a.response_code < 300 ? "ok" : "error";
    const failure = cell(row, a.failure, "Failure");
    if (a.failure !== null) failure.className = "error";
    cell(row, a.duration_ms === null ? "—" : a.duration_ms + " ms", "Duration");
    cell(row, when(a.ended_at), "Ended");
  }
  $("attempt-log-empty").hidden = attempts.length > 0;
  $("attempt-log").hidden = attempts.length === 0;
}

async function loadAttempts() {
  const id = attemptsOf;
  if (!id) return;
  const [{ attempts }, { deliveries }] = await Promise.all([call("GET", "/webhooks/" + id + "/attempts"), call("GET", "/webhooks/" + id + "/deliveries")]);
  if (attemptsOf !== id) return; // closed, or another webhook's, meanwhile
  renderAttemptLog(attempts);
  const body = $("attempts").tBodies[0];
  body.replaceChildren();
  for (const d of deliveries) {
    const row = body.insertRow();
    row.dataset.id = d.id;
    cell(row, d.id, "Delivery");
    cell(row, d.event_type, "Event");
    cell(row, d.status, "Status");
    cell(row, d.attempts, "Attempts");
    const code = cell(row, d.response_code ?? "—", "Code");
    if (d.response_code !== null) code.className = d.response_code >= 200 && d.response_code < 300 ? "ok" : "error";
    cell(row, d.last_duration_ms === null ? "—" : d.last_duration_ms + " ms", "Duration");
    cell(row, when(d.last_attempt_at), "Last attempt");
    cell(row, d.error, "Error");
  }
  $("attempts-empty").hidden = deliveries.length > 0;
}

async function showAttempts(id) {
  attemptsOf = id;
  $("attempts-of").textContent = id;
  $("attempts-section").hidden = false;
  try {
    await loadAttempts();
  } catch (e) {
    say(e.message, "error");
  }
  $("attempts-section").scrollIntoView({ block: "nearest" });
}

function closeAttempts() {
  attemptsOf = null;
  $("attempts-section").hidden = true;
  $("attempts").tBodies[0].replaceChildren();
  $("attempt-log").tBodies[0].replaceChildren();
}

async function loadStats() {
  const s = await call("GET", "/stats");
  $("stat-queue").textContent = s.queue_depth;
  $("stat-dead").textContent = s.dead_letters;
  $("stat-delivered").textContent = s.delivered_last_hour;
  $("stat-failed").textContent = s.failed_last_hour;
  $("stat-rate").textContent = s.delivery_rate_per_minute.toFixed(2) + "/min";
  $("stat-failure").textContent = s.failure_rate === null ? "–" : Math.round(s.failure_rate * 100) + "%";
}

async function loadDlq() {
  // The count is of the entries shown (one read, so a retry finishing between two reads
  // cannot leave "1 failed deliveries" over an empty table); past a page, the stats say.
  const { entries } = await call("GET", "/webhook-deliveries/dlq?limit=200");
  const total = entries.length < 200 ? entries.length : (await call("GET", "/webhook-deliveries/dlq/stats")).total;
  $("dlq-stats").textContent = total + " failed deliveries";
  $("dlq").hidden = entries.length === 0;
  const body = $("dlq").tBodies[0];
  // The keyboard keeps its place: on the same webhook's Retry, or on the heading once gone.
  const focused = body.contains(document.activeElement) ? document.activeElement.closest("tr").dataset.webhook : null;
  body.replaceChildren();
  for (const d of entries) {
    const row = body.insertRow();
    row.dataset.id = d.id;
    row.dataset.webhook = d.webhook_id;
    cell(row, d.id, "Delivery");
    cell(row, d.webhook_id, "Webhook");
    cell(row, d.event_type, "Event");
    cell(row, d.attempts, "Attempts");
    cell(row, d.error || (d.response_code ? "HTTP " + d.response_code : ""), "Error");
    cell(row, when(d.dead_at), "Dead since");
    const action = cell(row, "", "Action");
    action.className = "actions";
    button(action, "Retry", "retry", d.webhook_id, () => retry(d.webhook_id));
  }
  if (focused !== null) (body.querySelector(`tr[data-webhook="${CSS.escape(focused)}"] button`) || $("dlq-title")).focus();
}

async function retry(webhookId) {
  try {
    const r = await call("POST", "/webhook-deliveries/dlq/" + webhookId + "/retry");
    say("retrying " + r.retried + " deliveries of " + webhookId, "ok");
  } catch (e) {
    say(e.message, "error");
  }
}

async function refresh(force) {
  await Promise.all([loadHooks(force), loadStats(), loadDlq(), loadAttempts()]);
}

function showSignedIn(on) {
  $("console").hidden = !on;
  $("signin").hidden = on;
  $("signout").hidden = !on;
}

async function signIn() {
  try {
    await refresh(true);
    showSignedIn(true);
  } catch (e) {
    say(e.message, "error");
    if (e.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      showSignedIn(false);
    }
  }
}

function wire() {
  $("signin").onsubmit = (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("token").value);
    $("token").value = "";
    say("signed in", "ok");
    signIn();
  };
  $("signout").onclick = () => {
    sessionStorage.removeItem(TOKEN_KEY);
    hooksShown = "";
    closeAttempts();
    resetCreate(); // nothing typed stays behind
    showSignedIn(false);
    say("signed out", "");
    $("token").focus();
  };
  $("create").onsubmit = create;
  $("create-generate").onclick = () => {
    $("create-secret").value = newSecret();
    $("create-secret").type = "text";
  };
  for (const r of document.querySelectorAll('#create [name="signing"]')) r.onchange = showSigning;
  resetCreate();
  $("edit").onsubmit = saveEdit;
  $("rotate").onsubmit = rotate;
  $("rotate-generate").onclick = () => {
    $("rotate-secret").value = newSecret();
  };
  $("delete").onsubmit = remove;
  $("attempts-close").onclick = closeAttempts;
  $("secret-copy").onclick = async () => {
    $("secret-value").select();
    try {
      await navigator.clipboard.writeText($("secret-value").value);
      $("secret-copied").textContent = "Copied.";
    } catch {
      $("secret-copied").textContent = "Selected: copy it with Ctrl+C.";
    }
  };
  $("secret-done").onclick = () => {
    $("secret-value").value = "";
    $("secret-dialog").close();
  };
  for (const b of document.querySelectorAll("[data-close]")) b.onclick = () => b.closest("dialog").close();
  for (const d of document.querySelectorAll("dialog"))
    d.addEventListener("close", () => {
      if (d.id === "secret-dialog") $("secret-value").value = ""; // shown once: gone when closed
      if (!document.querySelector("dialog[open]")) refocusOpener();
    });
}

wire();
if (sessionStorage.getItem(TOKEN_KEY)) signIn();
setInterval(async () => {
  if (polling || !sessionStorage.getItem(TOKEN_KEY) || $("console").hidden) return;
  polling = true;
  try {
    await refresh(false);
  } catch {
    // the next poll tries again; an action's own errors are shown by the action
  } finally {
    polling = false;
  }
}, POLL_MS);
