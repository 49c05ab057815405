/* hindsight ui: the little JavaScript the pages need (served from this server only).
 * - the Memories list listens to server-sent events and puts new rows on top;
 * - a symbol page draws its call-graph neighbourhood with cytoscape (click a node to walk).
 * Everything shown comes from the server as escaped HTML or as JSON set through
 * textContent / cytoscape labels, never as markup built here. */
"use strict";

(function () {
  function live() {
    var table = document.querySelector("table[data-live]");
    if (!table || !window.EventSource) return;
    var rows = document.getElementById("memory-rows");
    var status = document.getElementById("live-status");
    var source = new EventSource(table.getAttribute("data-live"));
    source.addEventListener("memory", function (e) {
      if (document.getElementById("memory-" + e.lastEventId)) return;
      var empty = rows.querySelector("tr.empty");
      if (empty) empty.remove();
      rows.insertAdjacentHTML("afterbegin", e.data);  // rendered and escaped by the server
      status.textContent = "New memory #" + e.lastEventId + " arrived.";
    });
    source.addEventListener("error", function () {
      status.textContent = "Live updates paused; they resume when the server answers again.";
    });
    window.addEventListener("pagehide", function () { source.close(); });
  }

  // Preset positions: the centre at 0, callers to the left and callees to the right, one
  // column per depth, a long column wrapped into several (25 nodes each).
  function positions(nodes) {
    var groups = {};
    nodes.forEach(function (n) {
      var key = n.side + ":" + n.depth;
      (groups[key] = groups[key] || []).push(n);
    });
    var pos = {}, perCol = 25, colW = 190, rowH = 34, depthCols = {};
    Object.keys(groups).forEach(function (key) {
      var list = groups[key], first = list[0];
      if (first.side === "center") { pos[first.id] = { x: 0, y: 0 }; return; }
      var dir = first.side === "caller" ? -1 : 1;
      var cols = Math.ceil(list.length / perCol);
      var before = 0;
      for (var d = 1; d < first.depth; d++) before += depthCols[first.side + ":" + d] || 1;
      depthCols[key] = cols;
      list.forEach(function (n, i) {
        var col = Math.floor(i / perCol), row = i % perCol;
        var inCol = Math.min(perCol, list.length - col * perCol);
        pos[n.id] = { x: dir * (before + col + 1) * colW, y: (row - (inCol - 1) / 2) * rowH };
      });
    });
    return pos;
  }

  function graph() {
    var el = document.getElementById("graph");
    if (!el || !window.cytoscape) return;
    var status = document.getElementById("graph-status");
    var t0 = performance.now();
    fetch(el.getAttribute("data-src"), { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        if (data.error) { status.textContent = data.error; return; }
        var pos = positions(data.nodes);
        var elements = data.nodes.map(function (n) {
          return { group: "nodes", data: n, position: pos[n.id], classes: n.side + (n.resolved ? "" : " unresolved") };
        }).concat(data.edges.map(function (e, i) {
          return { group: "edges", data: { id: "e" + i, source: e.source, target: e.target } };
        }));
        var cy = window.cytoscape({
          container: el, elements: elements, layout: { name: "preset", fit: true, padding: 20 },
          minZoom: 0.1, maxZoom: 3, wheelSensitivity: 0.3,
          style: [
            { selector: "node", style: { "label": "data(label)", "font-size": 11, "width": 14, "height": 14,
              "background-color": "#6b7280", "text-valign": "bottom", "text-margin-y": 3, "color": "#1b1f24" } },
            { selector: "node.center", style: { "background-color": "#0a58ca", "width": 22, "height": 22, "font-weight": "bold" } },
            { selector: "node.caller", style: { "background-color": "#7c3aed" } },
            { selector: "node.callee", style: { "background-color": "#059669" } },
            { selector: "node.unresolved", style: { "background-color": "#d1d5db", "shape": "diamond" } },
            { selector: "edge", style: { "width": 1, "line-color": "#9ca3af", "target-arrow-color": "#9ca3af",
              "target-arrow-shape": "triangle", "curve-style": "straight", "arrow-scale": 0.7 } }
          ]
        });
        cy.on("tap", "node", function (evt) {
          var q = evt.target.data("qname");
          if (!q) return;
          el.setAttribute("data-walked", q);
          window.location.href = "/symbol?q=" + encodeURIComponent(q);
        });
        cy.ready(function () {
          var ms = performance.now() - t0;
          el.setAttribute("data-ready", "1");
          el.setAttribute("data-nodes", String(data.nodes.length));
          el.setAttribute("data-render-ms", ms.toFixed(1));  // from the request for the data
          el.setAttribute("data-ready-at", performance.now().toFixed(1));  // from navigation
          status.textContent = data.nodes.length + " nodes, " + data.edges.length + " edges" +
            (data.truncated ? " (the nearest shown)" : "") + ".";
        });
        window.hindsightGraph = cy;
      })
      .catch(function (err) { status.textContent = "The graph could not be drawn: " + err; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    live();
    if (document.getElementById("graph")) {
      var s = document.createElement("script");
      s.src = "/static/vendor/cytoscape.min.js";
      s.onload = graph;
      document.head.appendChild(s);
    }
  });
})();
