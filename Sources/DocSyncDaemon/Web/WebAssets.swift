import Foundation

/// The status page itself (SPEC §15): one HTML page, its script and its style, served by
/// the daemon; nothing is loaded from anywhere else (the page's `Content-Security-Policy`
/// says so to the browser). The script builds the page from `/api` and the live feed
/// `/api/stream`, and puts names from the folders in as text, never as markup.
enum WebAssets {
    /// The page, with the session's CSRF token in `<meta name="csrf-token">`.
    static func page(csrfToken: String) -> String {
        html.replacingOccurrences(of: "CSRF_TOKEN", with: csrfToken)
    }

    private static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="CSRF_TOKEN">
<title>docsync</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<header>
  <h1>docsync</h1>
  <span>device <strong id="device">…</strong></span>
  <span>account <strong id="account">…</strong></span>
  <span>backend <span id="backend">…</span></span>
  <span>bandwidth limits <span id="limits">…</span></span>
  <span id="live" class="live off">connecting…</span>
  <span class="path">updated <span id="updated">never</span></span>
</header>
<p id="notice" class="notice"></p>
<section>
  <h2>Folders</h2>
  <table>
    <thead><tr><th>Folder</th><th>State</th><th>Items</th><th>Pending</th><th>Conflicts</th><th>Problems</th><th></th></tr></thead>
    <tbody id="folders"></tbody>
  </table>
</section>
<section>
  <h2>Held for you (<span id="held-count">0</span>)</h2>
  <div id="held"></div>
</section>
<section>
  <h2>Conflicts (<span id="conflict-count">0</span>)</h2>
  <div id="conflicts"></div>
</section>
<section>
  <h2>Recently Deleted (<span id="deleted-count">0</span>)</h2>
  <table>
    <thead><tr><th>Item</th><th>Folder</th><th>Deleted</th><th>By</th><th>Size</th><th></th></tr></thead>
    <tbody id="deleted"></tbody>
  </table>
</section>
<section>
  <h2>Devices</h2>
  <div id="devices"></div>
  <h2>Shares</h2>
  <div id="shares"></div>
</section>
<section>
  <h2>Conflict log</h2>
  <table>
    <thead><tr><th>When</th><th>Folder</th><th>Item</th><th>Outcome</th><th>Other device</th><th>Copy or note</th></tr></thead>
    <tbody id="conflict-log"></tbody>
  </table>
</section>
<section>
  <h2>Events</h2>
  <ul id="events"></ul>
</section>
<script src="/app.js"></script>
</body>
</html>
"""#

    /// The page's icon (`/favicon.ico`, which browsers ask for by themselves).
    static let icon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#2f6fdf"/><path d="M5 8.5l2 2 4-5" stroke="#fff" stroke-width="1.6" fill="none"/></svg>
"""#

    /// What a browser without a session sees at `/`.
    static let signInPage = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>docsync: sign in</title><link rel="stylesheet" href="/app.css"></head>
<body><header><h1>docsync</h1></header>
<p>This page shows what docsync is doing on this computer. To open it, run</p>
<pre>docs-status web</pre>
<p>in a terminal and open the address it prints (it works once, for ten minutes).</p>
</body></html>
"""#

    /// What a spent, expired or unknown sign-in address shows.
    static let signInSpentPage = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>docsync: sign in</title><link rel="stylesheet" href="/app.css"></head>
<body><header><h1>docsync</h1></header>
<p>That sign-in address was used already, has expired, or is not this daemon's. Run</p>
<pre>docs-status web</pre>
<p>in a terminal and open the address it prints (it works once, for ten minutes).</p>
</body></html>
"""#

    static let script = #"""
"use strict";
// docsync's status page: everything comes from /api on this daemon; the live feed is
// /api/stream (server-sent events), so the page never polls. Names from the folders are put
// in the page as text, never as markup.
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);
let status = null;
let listsKey = "";
const peaks = {};

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else if (key === "onclick") node.addEventListener("click", value);
    else node[key] = value;
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function bytes(n) {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) { n /= 1000; i++; }
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
}

function when(text) {
  if (!text) return "";
  const date = new Date(text);
  return isNaN(date) ? String(text) : date.toLocaleString();
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, Object.assign({ credentials: "same-origin" }, options));
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

function say(text, failed) {
  const line = $("notice");
  line.textContent = text;
  line.className = failed ? "notice failed" : "notice";
}

async function act(label, path, body) {
  try {
    const outcomes = await api(path, body);
    const refused = Array.isArray(outcomes) ? outcomes.filter((o) => !o.done) : [];
    if (refused.length) say(label + ": " + refused.map((o) => o.path + ": " + (o.message || "not done")).join("; "), true);
    else say(label + ": done");
  } catch (error) {
    say(label + ": " + error.message, true);
  }
  refreshLists(true);
}

function renderStatus() {
  $("device").textContent = status.device;
  $("account").textContent = status.account;
  $("backend").textContent = status.backend;
  const limits = [];
  if (status.uploadLimit) limits.push("up " + bytes(status.uploadLimit) + "/s");
  if (status.downloadLimit) limits.push("down " + bytes(status.downloadLimit) + "/s");
  $("limits").textContent = limits.length ? limits.join(", ") : "none";
  const body = $("folders");
  body.replaceChildren();
  for (const folder of status.folders) {
    const pending = folder.pendingUploadBytes + folder.pendingDownloadBytes;
    const settled = folder.state === "idle" && folder.pendingUploads === 0 && folder.pendingDownloads === 0;
    peaks[folder.id] = settled ? 0 : Math.max(peaks[folder.id] || 0, pending);
    const done = peaks[folder.id] > 0 ? Math.round(100 * (1 - pending / peaks[folder.id])) : 100;
    const paused = folder.state === "paused";
    body.append(el("tr", { "data-folder": folder.id },
      el("td", {}, el("strong", {}, folder.id), el("div", { class: "path" }, folder.path)),
      el("td", { class: "state state-" + folder.state }, folder.state,
        folder.message ? el("div", { class: "message" }, folder.message) : null),
      el("td", { class: "number" }, folder.items),
      el("td", { class: "pending" },
        "↑ " + folder.pendingUploads + " (" + bytes(folder.pendingUploadBytes) + ")  ↓ " +
          folder.pendingDownloads + " (" + bytes(folder.pendingDownloadBytes) + ")",
        pending > 0 ? el("progress", { max: 100, value: done }) : null,
        folder.activity ? el("div", { class: "activity" }, folder.activity.action + ": " + folder.activity.done + " of " + folder.activity.total,
          el("progress", { max: Math.max(1, folder.activity.total), value: folder.activity.done })) : null),
      el("td", { class: "number" }, folder.conflicts),
      el("td", {}, folder.problems.length ? folder.problems.slice(0, 5).map((p) => p.path + ": " + p.message).join("\n") : ""),
      el("td", {}, el("button", {
        "data-action": paused ? "resume" : "pause",
        onclick: () => act(paused ? "resume " + folder.id : "pause " + folder.id, paused ? "/api/resume" : "/api/pause", { folder: folder.id }),
      }, paused ? "Resume" : "Pause"))));
  }
  $("updated").textContent = new Date().toLocaleTimeString();
}

function renderHeld(folders) {
  const box = $("held");
  box.replaceChildren();
  const held = folders.filter((f) => f.held);
  $("held-count").textContent = held.length;
  if (!held.length) { box.append(el("p", { class: "empty" }, "Nothing is held.")); return; }
  for (const folder of held) {
    const brake = folder.held.reason === "brake";
    box.append(el("div", { class: "card", "data-held": folder.folder },
      el("h3", {}, folder.folder, " — ", brake ? "deletions held by the brake" : "folder held"),
      el("p", {}, folder.held.message),
      el("ul", {}, ...folder.items.slice(0, 20).map((item) => el("li", {}, item.path))),
      folder.total > 20 ? el("p", {}, "and " + (folder.total - 20) + " more") : null,
      el("button", { "data-action": "restore", onclick: () => act("restore " + folder.folder, "/api/held/restore", { folder: folder.folder }) },
        brake ? "Restore the files" : "Restore"),
      el("button", { "data-action": "confirm", class: "danger", onclick: () => {
        if (confirm("Delete these " + folder.total + " items on every device?")) act("confirm " + folder.folder, "/api/held/confirm", { folder: folder.folder });
      } }, brake ? "Delete them everywhere" : "Confirm")));
  }
}

function renderConflicts(items) {
  const box = $("conflicts");
  box.replaceChildren();
  $("conflict-count").textContent = items.length;
  if (!items.length) { box.append(el("p", { class: "empty" }, "No conflicts.")); return; }
  for (const item of items) {
    const resolve = (keep, label) => el("button", {
      "data-action": "resolve-" + keep,
      onclick: () => act("resolve " + item.path, "/api/conflicts/resolve", { folder: item.folder, path: item.path, keep }),
    }, label);
    box.append(el("div", { class: "card", "data-conflict": item.folder + "/" + item.path },
      el("h3", {}, item.path), el("p", { class: "path" }, item.folder + " · modified " + when(item.modified)),
      resolve("local", "Keep this device's"), resolve("remote", "Keep the other device's"), resolve("both", "Keep both")));
  }
}

function renderDeleted(entries) {
  const body = $("deleted");
  body.replaceChildren();
  $("deleted-count").textContent = entries.length;
  for (const entry of entries) {
    body.append(el("tr", { "data-deleted": entry.folder + "/" + entry.path },
      el("td", {}, entry.path), el("td", {}, entry.folder), el("td", {}, when(entry.deletedAt)),
      el("td", {}, entry.deletedBy), el("td", { class: "number" }, entry.kind === "Folder" ? "" : bytes(entry.size)),
      el("td", {}, el("button", { "data-action": "recover", onclick: () => act("recover " + entry.path, "/api/deleted/recover", { folder: entry.folder, path: entry.path }) }, "Recover"))));
  }
}

function renderConflictLog(entries) {
  const body = $("conflict-log");
  body.replaceChildren();
  for (const entry of entries) {
    // Its time is a Timestamp: nanoseconds since 1970.
    const time = typeof entry.time === "number" ? entry.time / 1e6 : entry.time;
    body.append(el("tr", {}, el("td", {}, when(time)), el("td", {}, entry.folder), el("td", {}, entry.path),
      el("td", {}, entry.outcome), el("td", {}, entry.remoteDevice || ""), el("td", {}, entry.copyPath || entry.detail || "")));
  }
}

let devicesAnswer = null;
function renderDevices(answer) {
  devicesAnswer = answer;
  const box = $("devices");
  box.replaceChildren();
  box.append(el("p", {}, "This device's key: ", el("code", {}, status ? status.deviceKeyFingerprint || "" : ""),
    " · encryption: " + (answer.state || "off")));
  if (answer.devices && answer.devices.length) {
    box.append(el("ul", {}, ...answer.devices.map((d) => el("li", {}, d.name + " — " + (d.fingerprint || "") + (d.approved === false ? " (waiting for approval)" : "")))));
  }
}

function renderShares(entries, failure) {
  const box = $("shares");
  box.replaceChildren();
  if (failure) { box.append(el("p", { class: "empty" }, failure)); return; }
  if (!entries.length) { box.append(el("p", { class: "empty" }, "No shares.")); return; }
  box.append(el("ul", {}, ...entries.map((s) => el("li", {}, JSON.stringify(s.share).replace(/"/g, "") + " — " + (s.participant || "") + " " + (s.status || "") + " " + (s.permission || "")))));
}

function addEvent(event, atTop) {
  const list = $("events");
  const row = el("li", { class: "event event-" + event.kind, "data-event": event.id },
    el("time", {}, when(event.time)), " ", el("strong", {}, event.kind), " ", event.folder ? event.folder + ": " : "", event.message);
  if (atTop) list.prepend(row); else list.append(row);
  while (list.children.length > 100) list.lastChild.remove();
}

// The lists (held, conflicts, Recently Deleted, the conflict log) are read again when what
// they show may have changed: a folder's conflicts, held items or state, a finished sync, a
// click; at most once every two seconds, however busy the folders are.
let refreshing = false;
let again = false;
let lastRefresh = 0;
async function refreshLists(force) {
  const key = status ? status.folders.map((f) => [f.id, f.conflicts, f.held ? f.held.items : -1, f.state].join(":")).join("|") : "";
  if (!force && key === listsKey) return;
  listsKey = key;
  const wait = lastRefresh + 2000 - Date.now();
  if (refreshing || (!force && wait > 0)) {
    if (!again) { again = true; setTimeout(() => { again = false; refreshLists(true); }, Math.max(wait, 200)); }
    return;
  }
  refreshing = true;
  lastRefresh = Date.now();
  try {
    const [held, conflicts, deleted, log] = await Promise.all([
      api("/api/held"), api("/api/conflicts"), api("/api/deleted"), api("/api/conflict-log")]);
    renderHeld(held); renderConflicts(conflicts); renderDeleted(deleted); renderConflictLog(log);
  } catch (error) {
    say("cannot read the daemon: " + error.message, true);
  } finally {
    refreshing = false;
  }
}

async function refreshAccount() {
  try { renderDevices(await api("/api/devices")); } catch (error) { $("devices").textContent = error.message; }
  try {
    const shares = await api("/api/shares");
    if (Array.isArray(shares)) renderShares(shares); else renderShares([], shares.unavailable || "");
  } catch (error) {
    renderShares([], error.message);
  }
}

function connect() {
  const stream = new EventSource("/api/stream");
  stream.addEventListener("open", () => { $("live").textContent = "live"; $("live").className = "live on"; });
  stream.addEventListener("error", () => { $("live").textContent = "reconnecting…"; $("live").className = "live off"; });
  stream.addEventListener("status", (message) => {
    const first = status === null;
    status = JSON.parse(message.data);
    renderStatus();
    // The devices may have been drawn before the first status brought this device's key.
    if (first && devicesAnswer) renderDevices(devicesAnswer);
    refreshLists(false);
  });
  stream.addEventListener("event", (message) => {
    const event = JSON.parse(message.data);
    addEvent(event, true);
    if (event.kind === "synced" || event.kind === "conflicts") refreshLists(true);
  });
}

connect();
refreshAccount();
"""#

    static let style = #"""
:root { color-scheme: light dark; --accent: #2f6fdf; --bad: #c0392b; --ok: #2e8b57; --muted: #777; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; padding: 0 1.5rem 2rem; }
header { display: flex; align-items: baseline; gap: 1.5rem; flex-wrap: wrap; border-bottom: 1px solid #8884; padding: .8rem 0; }
header h1 { font-size: 1.3rem; margin: 0; }
.live { font-size: .85rem; padding: .1rem .5rem; border-radius: 1rem; }
.live.on { background: #2e8b5733; } .live.off { background: #c0392b33; }
section { margin-top: 1.5rem; }
h2 { font-size: 1.1rem; border-bottom: 1px solid #8882; padding-bottom: .2rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #8882; vertical-align: top; }
td.number { text-align: right; }
.path, .message { color: var(--muted); font-size: .85rem; white-space: pre-wrap; word-break: break-all; }
.state { font-weight: 600; }
.state-idle { color: var(--ok); } .state-syncing, .state-scanning { color: var(--accent); }
.state-error, .state-held, .state-offline { color: var(--bad); } .state-paused { color: var(--muted); }
progress { display: block; width: 10rem; }
.card { border: 1px solid #8884; border-radius: .4rem; padding: .6rem .9rem; margin: .5rem 0; }
.card h3 { margin: 0 0 .3rem; font-size: 1rem; word-break: break-all; }
button { margin: .2rem .4rem .2rem 0; padding: .3rem .7rem; border-radius: .3rem; border: 1px solid #8886; background: #8881; cursor: pointer; }
button.danger { border-color: var(--bad); color: var(--bad); }
.empty { color: var(--muted); }
.notice { min-height: 1.2rem; color: var(--ok); } .notice.failed { color: var(--bad); }
#events { list-style: none; padding: 0; max-height: 20rem; overflow: auto; }
#events li { padding: .15rem 0; border-bottom: 1px solid #8881; }
#events time { color: var(--muted); font-size: .85rem; }
.event-problem, .event-gap { color: var(--bad); }
"""#
}
