#include "floe/server/http/table_page_assets.h"

namespace floe::server::http {

const char kPageStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em 2em; color: #1d1d1f; }
h1 { font-size: 1.5em; margin: 0.3em 0; }
h2 { font-size: 1.2em; margin-top: 1.5em; }
h3 { font-size: 1em; }
a { color: #0b57d0; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccd; padding: 2px 8px; text-align: left; vertical-align: top; }
th { background: #eef; }
td.number { text-align: right; }
tr.current td { background: #eaf6ea; }
tr.refused td { color: #b00020; }
.hint { color: #667; }
.error { color: #b00020; }
#graph { overflow-x: auto; border: 1px solid #ccd; padding: 4px; }
#graph svg text { font: 12px ui-monospace, monospace; }
.snapshot-node { cursor: pointer; }
.snapshot-node .ref-label { fill: #0b57d0; font-weight: bold; }
.snapshot-node .snapshot-meta { fill: #556; }
.snapshot-node.picked circle { stroke: #e37400; stroke-width: 4; }
.jump-row { fill: #b00020; }
.diff-truncated { color: #667; font-style: italic; }
)css";

const char kTablePageBody[] = R"html(
<p id="load-error" class="error" hidden></p>
<section id="lineage">
<h2>Lineage</h2>
<p class="hint">Newest first; each snapshot is drawn above its parent. Branches and tags label the
snapshots they point to, the current snapshot is filled, and a dashed arrow marks each time main's
current snapshot jumped back (a rollback) or elsewhere. Click two snapshots to compare them.</p>
<div id="graph"></div>
<ul id="jump-list"></ul>
</section>
<section id="diff">
<h2>Rows changed between two snapshots</h2>
<form id="diff-form">
<label>From <select id="diff-from"></select></label>
<label>to <select id="diff-to"></select></label>
<button id="diff-run" type="submit">Compare</button>
</form>
<p id="diff-error" class="error" hidden></p>
<div id="diff-result"></div>
<div id="row-changes" hidden>
<h3>Changes commit by commit</h3>
<p class="hint">The rows each commit after the first snapshot up to the second inserted, deleted
and updated, with the commit (table_changes). Between snapshots not on one line of history,
the two states compared.</p>
<p id="row-changes-error" class="error" hidden></p>
<div id="row-changes-result"></div>
</div>
</section>
<section id="snapshot-list">
<h2>Snapshots</h2>
<p class="hint">Times in UTC. Records and data files as the snapshot's summary counts them.</p>
<table id="snapshots">
<thead><tr><th>Snapshot</th><th>Parent</th><th>Committed at (UTC)</th><th>Operation</th>
<th>Added records</th><th>Deleted records</th><th>Added files</th><th>Deleted files</th>
<th>Client</th><th>Engine</th><th>Made by</th><th>Refs</th></tr></thead>
<tbody></tbody>
</table>
</section>
<section id="change-list">
<h2>Changes</h2>
<p class="hint">Every change of the table's metadata pointer, by any engine, newest first, as the
catalog's audit log records it (the newest 200; times in UTC). Refused changes moved nothing.</p>
<table id="changes">
<thead><tr><th>Seq</th><th>Changed at (UTC)</th><th>Kind</th><th>Change</th><th>User</th>
<th>Client</th><th>Statement</th></tr></thead>
<tbody></tbody>
</table>
</section>
)html";

// Every value from the table goes into the page through textContent or setAttribute, never
// as markup.
const char kTablePageScript[] = R"js(
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const api = "/api" + location.pathname;
  const byId = (id) => document.getElementById(id);

  function make(doc, tag, attrs, text) {
    const e = doc === "svg" ? document.createElementNS(SVG, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  const html = (tag, attrs, text) => make("html", tag, attrs, text);
  const svg = (tag, attrs, text) => make("svg", tag, attrs, text);

  const refLabel = (r) => (r.name === "main" ? "main" : r.type + ": " + r.name);
  const shownTime = (iso) => iso.replace("T", " ").replace("Z", "");
  const shown = (v) => (v === null || v === undefined ? "" : String(v));
  const jumpVerb = { rollback: "rolled back", "fast-forward": "fast-forwarded", move: "moved" };
  const jumpText = (j) =>
    j.branch + " " + jumpVerb[j.kind] + " from " + j.from_snapshot_id + " to " +
    j.to_snapshot_id + " at " + shownTime(j.at);

  async function getJson(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    let body = null;
    try { body = await response.json(); } catch (e) { body = null; }
    if (!response.ok) throw new Error(body && body.error ? body.error : response.status + " " + response.statusText);
    return body;
  }

  function drawGraph(t) {
    const rowH = 26, laneW = 20, top = 16;
    const left = 24 + 14 * t.jumps.length;
    const textX = left + Math.max(1, t.lanes) * laneW + 6;
    const rows = t.snapshots.length + t.jumps.length;
    const at = new Map();
    for (const s of t.snapshots) at.set(s.snapshot_id, { x: left + s.lane * laneW, y: top + s.row * rowH, s: s });

    const root = svg("svg", { id: "lineage-graph", width: textX + 900, height: top + rows * rowH, role: "img" });
    root.appendChild(svg("title", {}, "Lineage of " + t.table));
    const defs = svg("defs");
    const marker = svg("marker", { id: "jump-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
    marker.appendChild(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#b00020" }));
    defs.appendChild(marker);
    root.appendChild(defs);

    const edges = svg("g", { class: "edges" });
    for (const s of t.snapshots) {
      const child = at.get(s.snapshot_id), parent = s.parent_id && at.get(s.parent_id);
      if (!parent) continue;
      const d = child.x === parent.x
        ? `M ${child.x} ${child.y} L ${parent.x} ${parent.y}`
        : `M ${child.x} ${child.y} L ${parent.x} ${child.y + rowH} L ${parent.x} ${parent.y}`;
      edges.appendChild(svg("path", { class: "edge", d: d, fill: "none", stroke: "#889", "stroke-width": 2,
        "data-from-snapshot-id": s.snapshot_id, "data-to-snapshot-id": s.parent_id }));
    }
    root.appendChild(edges);

    const jumps = svg("g", { class: "jumps" });
    t.jumps.forEach((j, k) => {
      const from = at.get(j.from_snapshot_id), to = at.get(j.to_snapshot_id);
      const y = top + j.row * rowH;
      const label = svg("text", { class: "jump-row", x: textX, y: y + 4, "data-kind": j.kind }, "~ " + jumpText(j));
      jumps.appendChild(label);
      if (!from || !to) return;
      const bend = left - 14 - 14 * k;
      const path = svg("path", { class: "jump " + j.kind, "data-kind": j.kind,
        "data-from-snapshot-id": j.from_snapshot_id, "data-to-snapshot-id": j.to_snapshot_id,
        d: `M ${from.x - 7} ${from.y} C ${bend} ${from.y}, ${bend} ${to.y}, ${to.x - 8} ${to.y}`,
        fill: "none", stroke: "#b00020", "stroke-width": 1.5, "stroke-dasharray": "4 3",
        "marker-end": "url(#jump-arrow)" });
      path.appendChild(svg("title", {}, jumpText(j)));
      jumps.appendChild(path);
    });
    root.appendChild(jumps);

    const nodes = svg("g", { class: "nodes" });
    for (const s of t.snapshots) {
      const p = at.get(s.snapshot_id);
      const g = svg("g", { class: "snapshot-node" + (s.is_current ? " current" : ""),
        "data-snapshot-id": s.snapshot_id, "data-current": s.is_current, tabindex: 0 });
      g.appendChild(svg("title", {}, "snapshot " + s.snapshot_id + (s.made_by ? ", made by " + s.made_by : "")));
      g.appendChild(svg("circle", { cx: p.x, cy: p.y, r: s.is_current ? 7 : 5,
        fill: s.is_current ? "#188038" : "#fff", stroke: s.is_current_ancestor ? "#188038" : "#889", "stroke-width": 2 }));
      const text = svg("text", { x: textX, y: p.y + 4 });
      text.appendChild(svg("tspan", { class: "snapshot-id" }, s.snapshot_id));
      if (s.refs.length) {
        text.appendChild(svg("tspan", {}, " ("));
        s.refs.forEach((r, i) => {
          if (i) text.appendChild(svg("tspan", {}, ", "));
          text.appendChild(svg("tspan", { class: "ref-label", "data-ref-name": r.name, "data-ref-type": r.type }, refLabel(r)));
        });
        text.appendChild(svg("tspan", {}, ")"));
      }
      let meta = " " + shownTime(s.committed_at) + " " + shown(s.operation);
      if (s.added_records !== null) meta += " +" + s.added_records;
      if (s.deleted_records !== null) meta += " -" + s.deleted_records;
      if (s.added_records !== null || s.deleted_records !== null) meta += " records";
      if (s.is_current) meta += "  (current)";
      text.appendChild(svg("tspan", { class: "snapshot-meta" }, meta));
      g.appendChild(text);
      g.addEventListener("click", () => pick(s.snapshot_id));
      g.addEventListener("keydown", (e) => { if (e.key === "Enter") pick(s.snapshot_id); });
      nodes.appendChild(g);
    }
    root.appendChild(nodes);
    byId("graph").replaceChildren(root);

    const list = byId("jump-list");
    for (const j of t.jumps) {
      list.appendChild(html("li", { class: "jump", "data-kind": j.kind,
        "data-from-snapshot-id": j.from_snapshot_id, "data-to-snapshot-id": j.to_snapshot_id }, jumpText(j)));
    }
  }

  function fillSnapshotList(t) {
    const body = byId("snapshots").tBodies[0];
    for (const s of t.snapshots) {
      const tr = html("tr", { "data-snapshot-id": s.snapshot_id, class: s.is_current ? "current" : "" });
      const cell = (cls, v) => tr.appendChild(html("td", { class: cls }, shown(v)));
      cell("snapshot-id", s.snapshot_id);
      cell("parent-id", s.parent_id);
      cell("committed-at", shownTime(s.committed_at));
      cell("operation", s.operation);
      cell("added-records number", s.added_records);
      cell("deleted-records number", s.deleted_records);
      cell("added-files number", s.added_data_files);
      cell("deleted-files number", s.deleted_data_files);
      cell("client", s.client);
      cell("engine", s.engine);
      cell("made-by", s.made_by);
      cell("refs", s.refs.map(refLabel).join(", "));
      body.appendChild(tr);
    }
  }

  // "append; main: 1 -> 2; restored to ...": the operation, each ref moved, the detail.
  const changeText = (c) => [c.operation]
    .concat(c.refs.map((r) => r.name + ": " + (r.from_snapshot_id || "none") + " -> " + (r.to_snapshot_id || "none")))
    .concat([c.detail]).filter((part) => part).join("; ");

  function fillChanges(t) {
    const body = byId("changes").tBodies[0];
    for (const c of t.changes) {
      const tr = html("tr", { "data-seq": c.seq, class: c.kind === "refused" ? "refused" : "" });
      const cell = (cls, v) => tr.appendChild(html("td", { class: cls }, shown(v)));
      cell("seq number", c.seq);
      cell("changed-at", shownTime(c.changed_at));
      cell("kind", c.kind);
      cell("change", changeText(c));
      cell("user", c.user);
      cell("client", c.client_address ? c.client + " (" + c.client_address + ")" : c.client);
      cell("statement", c.statement);
      body.appendChild(tr);
    }
  }

  function fillSelects(t) {
    for (const id of ["diff-from", "diff-to"]) {
      const select = byId(id);
      for (const s of t.snapshots) {
        let text = s.snapshot_id + " · " + shownTime(s.committed_at) + " " + shown(s.operation);
        if (s.refs.length) text += " (" + s.refs.map(refLabel).join(", ") + ")";
        select.appendChild(html("option", { value: s.snapshot_id }, text));
      }
    }
    const current = t.snapshots.find((s) => s.is_current);
    if (current) {
      byId("diff-to").value = current.snapshot_id;
      if (current.parent_id && t.snapshots.some((s) => s.snapshot_id === current.parent_id)) {
        byId("diff-from").value = current.parent_id;
      }
    }
  }

  let picks = [];
  function markPicks() {
    for (const g of document.querySelectorAll(".snapshot-node")) {
      g.classList.toggle("picked", picks.includes(g.getAttribute("data-snapshot-id")));
    }
  }
  function pick(id) {
    if (picks.length === 2) picks = [];
    picks.push(id);
    markPicks();
    if (picks.length === 1) {
      byId("diff-from").value = id;
    } else {
      byId("diff-to").value = id;
      runDiff();
    }
  }

  function rowsTable(id, columns, rows) {
    const table = html("table", { id: id, class: "diff-rows" });
    const head = html("tr");
    for (const c of columns) head.appendChild(html("th", {}, c));
    table.appendChild(html("thead")).appendChild(head);
    const body = table.appendChild(html("tbody"));
    for (const row of rows) {
      const tr = html("tr", { class: "diff-row" });
      for (const v of row) tr.appendChild(html("td", { class: v === null ? "null" : "" }, v === null ? "NULL" : v));
      body.appendChild(tr);
    }
    return table;
  }

  function showDiff(d) {
    const out = [];
    const summary = html("p", { id: "diff-summary" });
    const span = (id, v) => summary.appendChild(html("span", { id: id }, v));
    summary.append("From snapshot ");
    span("diff-from-id", d.from.snapshot_id);
    summary.append(" to snapshot ");
    span("diff-to-id", d.to.snapshot_id);
    summary.append(": ");
    span("diff-added-count", d.added);
    summary.append(d.added === 1 ? " row added, " : " rows added, ");
    span("diff-removed-count", d.removed);
    summary.append(" removed.");
    out.push(summary);
    if (d.columns_only_in_from.length || d.columns_only_in_to.length) {
      out.push(html("p", { class: "hint" }, "Not compared: columns only in the older snapshot (" +
        d.columns_only_in_from.join(", ") + ") or only in the newer one (" + d.columns_only_in_to.join(", ") + ")."));
    }
    for (const [kind, title, count, rows] of [["added", "Added rows", d.added, d.added_rows],
                                              ["removed", "Removed rows", d.removed, d.removed_rows]]) {
      out.push(html("h3", {}, title));
      out.push(rowsTable("diff-" + kind, d.columns, rows));
      if (rows.length < count) {
        out.push(html("p", { id: "diff-" + kind + "-truncated", class: "diff-truncated" },
          "Showing " + rows.length + " of " + count + " rows."));
      }
    }
    byId("diff-result").replaceChildren(...out);
  }

  function showChanges(c) {
    const summary = html("p", { id: "row-changes-summary" });
    const span = (id, v) => summary.appendChild(html("span", { id: id }, v));
    span("row-changes-total", c.total);
    summary.append(c.total === 1 ? " change after snapshot " : " changes after snapshot ");
    span("row-changes-from-id", c.from ? c.from.snapshot_id : "");
    summary.append(" up to snapshot ");
    span("row-changes-to-id", c.to ? c.to.snapshot_id : "");
    summary.append(".");
    const out = [summary, rowsTable("row-changes-rows", c.columns, c.rows)];
    if (c.rows.length < c.total) {
      out.push(html("p", { id: "row-changes-truncated", class: "diff-truncated" },
        "Showing " + c.rows.length + " of " + c.total + " changes."));
    }
    byId("row-changes-result").replaceChildren(...out);
  }

  async function runChanges(from, to) {
    const error = byId("row-changes-error");
    error.hidden = true;
    byId("row-changes").hidden = false;
    byId("row-changes-result").replaceChildren(html("p", { id: "row-changes-loading", class: "hint" }, "Reading…"));
    try {
      showChanges(await getJson(api + "/changes?from=" + encodeURIComponent(from) + "&to=" + encodeURIComponent(to)));
    } catch (e) {
      byId("row-changes-result").replaceChildren();
      error.textContent = e.message;
      error.hidden = false;
    }
  }

  async function runDiff() {
    const from = byId("diff-from").value, to = byId("diff-to").value;
    runChanges(from, to);
    const error = byId("diff-error");
    error.hidden = true;
    byId("diff-result").replaceChildren(html("p", { id: "diff-loading", class: "hint" }, "Comparing…"));
    try {
      const d = await getJson(api + "/diff?from=" + encodeURIComponent(from) + "&to=" + encodeURIComponent(to));
      showDiff(d);
    } catch (e) {
      byId("diff-result").replaceChildren();
      error.textContent = e.message;
      error.hidden = false;
    }
  }

  byId("diff-form").addEventListener("submit", (e) => { e.preventDefault(); runDiff(); });

  getJson(api).then((t) => {
    drawGraph(t);
    fillSnapshotList(t);
    fillChanges(t);
    fillSelects(t);
    document.body.setAttribute("data-loaded", "true");
  }).catch((e) => {
    const error = byId("load-error");
    error.textContent = "Could not load the table: " + e.message;
    error.hidden = false;
  });
})();
)js";

}  // namespace floe::server::http
