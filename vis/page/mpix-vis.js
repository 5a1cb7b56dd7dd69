// mpix-vis page: replays the traced rounds of an mpix exchange and draws them.
// Plain JavaScript and SVG; the data is inlined in #mpix-data by mpix-vis.
"use strict";
(function () {
  const SVGNS = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("mpix-data").textContent);
  const root = document.getElementById("vis");
  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- replay
  // Every block s*P+d starts at rank s. A trace row with a send peer moves the
  // blocks it lists from its rank to that peer in its round. Rounds run in
  // increasing order; inside one round a send is applied once its blocks have
  // arrived at its rank (a relay may forward in the round it received), so the
  // order of rows within a round does not matter. A block sent again by the
  // rank that last sent it, to the same peer, is another piece of it.
  function replay(run) {
    const P = run.P, nodeOf = run.node_of && run.node_of.length === P ? run.node_of : new Array(P).fill(0);
    const bytesOf = (b) => (run.bytes ? run.bytes[Math.floor(b / P)][b % P] : null);
    const errors = [];
    const traced = new Set();
    const byRound = new Map();
    let tracePeak = 0, stagePeak = 0;
    const tracePeakOf = new Array(P).fill(0);
    run.rows.forEach((rows, rank) => rows.forEach((row) => {
      const [round, sendPeer, recvPeer, blocks, sent, recv, temp, stage] = row;
      tracePeakOf[rank] = Math.max(tracePeakOf[rank], temp || 0);
      tracePeak = Math.max(tracePeak, temp || 0);
      stagePeak = Math.max(stagePeak, stage || 0);
      if (!byRound.has(round)) byRound.set(round, { round: round, sends: [], recvs: [] });
      const step = byRound.get(round);
      if (sendPeer >= 0) {
        blocks.forEach((b) => traced.add(b));
        step.sends.push({ from: rank, to: sendPeer, blocks: blocks, bytes: sent || 0,
                          hop: nodeOf[rank] === nodeOf[sendPeer] ? "intra" : "inter" });
      }
      if (recvPeer >= 0) step.recvs.push({ at: rank, from: recvPeer, blocks: sendPeer >= 0 ? null : blocks, bytes: recv || 0 });
    }));
    const steps = Array.from(byRound.values()).filter((s) => s.sends.length > 0).sort((a, b) => a.round - b.round);
    // The blocks that exist: non-empty ones (every one when sizes are unknown),
    // plus any traced block.
    const present = new Uint8Array(P * P);
    for (let b = 0; b < P * P; ++b) {
      const n = bytesOf(b);
      present[b] = n === null || n > 0 || traced.has(b) ? 1 : 0;
    }
    const holder = new Int16Array(P * P);
    for (let b = 0; b < P * P; ++b) holder[b] = present[b] ? Math.floor(b / P) : -1;
    const lastFrom = new Int16Array(P * P).fill(-1), lastTo = new Int16Array(P * P).fill(-1);
    const states = [holder.slice()];
    const arrivals = [new Set()];
    steps.forEach((step, k) => {
      const arrived = new Set();
      let pending = step.sends.slice();
      const apply = (s) => s.blocks.forEach((b) => {
        if (holder[b] === s.from) {
          holder[b] = s.to; lastFrom[b] = s.from; lastTo[b] = s.to; arrived.add(b);
        }
      });
      // The sender has the block, or sent it to the same peer last (another piece).
      const has = (s, b) => holder[b] === s.from || (lastFrom[b] === s.from && lastTo[b] === s.to);
      const ready = (s) => s.blocks.every((b) => has(s, b));
      let moved = true;
      while (pending.length && moved) {
        moved = false;
        pending = pending.filter((s) => { if (ready(s)) { apply(s); moved = true; return false; } return true; });
      }
      pending.forEach((s) => {
        const missing = s.blocks.filter((b) => !has(s, b));
        errors.push("round " + step.round + ": rank " + s.from + " sends " + missing.map((b) => blockName(b, P)).join(", ") +
                    " to rank " + s.to + " but does not hold " + (missing.length > 1 ? "them" : "it"));
        s.blocks.forEach((b) => { holder[b] = s.to; lastFrom[b] = s.from; lastTo[b] = s.to; arrived.add(b); });
      });
      step.index = k;
      step.blockCount = step.sends.reduce((n, s) => n + s.blocks.length, 0);
      step.byteCount = step.sends.reduce((n, s) => n + s.bytes, 0);
      step.intra = step.sends.filter((s) => s.hop === "intra").length;
      states.push(holder.slice());
      arrivals.push(arrived);
    });
    for (let b = 0; b < P * P; ++b) {
      if (present[b] && holder[b] !== b % P)
        errors.push("block " + blockName(b, P) + " ends at rank " + holder[b] + ", not at its destination");
    }
    // Working-buffer occupancy (blocks neither from nor for the rank) per state.
    const tempMax = new Array(P).fill(0);
    const tempBytes = states.map((h) => {
      const count = new Array(P).fill(0), bytes = new Array(P).fill(0);
      for (let b = 0; b < P * P; ++b) {
        const r = h[b];
        if (r < 0 || r === Math.floor(b / P) || r === b % P) continue;
        count[r] += 1; bytes[r] += bytesOf(b) || 0;
      }
      count.forEach((c, r) => { tempMax[r] = Math.max(tempMax[r], c); });
      return bytes;
    });
    const payload = !run.bytes ? null : (() => { let n = 0; for (let b = 0; b < P * P; ++b) if (present[b] && Math.floor(b / P) !== b % P) n += bytesOf(b) || 0; return n; })();
    const nodes = new Set(nodeOf).size;
    return { run: run, P: P, nodeOf: nodeOf, nodes: nodes, bytesOf: bytesOf, present: present, steps: steps,
             states: states, arrivals: arrivals, errors: errors, tempMax: tempMax, tempBytes: tempBytes,
             tracePeak: tracePeak, tracePeakOf: tracePeakOf, stagePeak: stagePeak, payload: payload,
             messages: steps.reduce((n, s) => n + s.sends.length, 0),
             bytesSent: steps.reduce((n, s) => n + s.byteCount, 0) };
  }

  function blockName(b, P) { return Math.floor(b / P) + "\u2192" + (b % P); }
  function fmtBytes(n) {
    if (n === null || n === undefined) return "?";
    if (n < 1024) return n + " B";
    if (n < 1048576) return (n / 1024).toFixed(n < 10240 ? 1 : 0) + " KiB";
    return (n / 1048576).toFixed(1) + " MiB";
  }
  function param(run, key) {
    const m = (run.params || "").split(/[,;]/).map((kv) => kv.split("=")).find((kv) => kv[0] === key);
    return m ? m[1] : null;
  }
  function colourOf(src, P) { return "hsl(" + ((src * 360) / Math.max(P, 1)).toFixed(1) + ",62%," + (src % 2 ? "62%" : "52%") + ")"; }

  // ------------------------------------------------------ the rule in words
  // What a round does, from the algorithm's family and the distances the
  // traced peers show; the words never claim more than the trace shows.
  const DIRECT = ["linear", "nonblocking", "scattered", "pmpi", "padded_alltoall", "randomized_scatter"];
  const NODE_FAMILY = ["node_aware", "locality_aware", "hierarchical", "multileader", "multileader_locality"];
  const HOP_WORDS = ["inside the group: gather the blocks bound for each remote group",
                     "to the group's leader", "to the leader that handles the destination group",
                     "between groups: one message per pair of groups", "down to the destination group's leaders",
                     "down to the destination ranks"];
  function digits(d, r) { let j = 0; while (d % r === 0 && d >= r) { d /= r; ++j; } return { j: j, v: d }; }
  function ruleText(m, step, focus) {
    const run = m.run, P = m.P, alg = run.algorithm;
    const mine = step.sends.filter((s) => s.from === focus);
    const dists = Array.from(new Set(step.sends.map((s) => (s.to - s.from + P) % P)));
    const hops = step.intra === step.sends.length ? "inside nodes" : step.intra === 0 ? "between nodes" : "inside and between nodes";
    const fx = mine.length ? mine[0] : null;
    const d = fx ? (fx.to - fx.from + P) % P : dists[0];
    const opaque = param(run, "opaque");
    if (opaque) return "inside " + (param(run, "mpi") || "the MPI library's collective") + ": opaque to mpix; drawn as every block going straight to its destination";
    if (DIRECT.indexOf(alg) >= 0 || (alg.indexOf("randomized") === 0 && step.sends.length > P && dists.length > 2))
      return "every rank sends each block straight to its destination, all messages posted at once" +
             (alg === "scattered" ? " (in windows of batch_size requests)" : alg === "randomized_scatter" ? " in one shuffled rank order" : "");
    if (alg === "pairwise") {
      const x = fx ? fx.from ^ fx.to : -1;
      if ((P & (P - 1)) === 0 && x > 0) return "step " + (step.index + 1) + ": rank p exchanges with rank p XOR " + x;
      return "step " + (step.index + 1) + ": rank p sends to p+" + d + " and receives from p\u2212" + d + " (mod " + P + ")";
    }
    if (alg.indexOf("randomized") === 0)
      return "step " + (step.index + 1) + " of the shuffled order (seed " + (param(run, "seed") || "0") + "): rank at position i sends to the rank at position i+" + (step.index + 1) + " and receives from position i\u2212" + (step.index + 1);
    const bruckish = /bruck|parlogna/.test(alg) && alg !== "node_bruck";
    const radix = parseInt(param(run, "radix") || "2", 10);
    const dg = digits(d, radix);
    // Only when the distance is one digit v * r^j (1 <= v < r) of the radix.
    if (bruckish && fx && dists.length === 1 && dg.v >= 1 && dg.v < radix) {
      const r = radix;
      if (r === 2) return "bit " + dg.j + ": send the blocks whose destination offset (d\u2212p mod " + P + ") has bit " + dg.j + " set to rank p+" + d + ", receive from p\u2212" + d;
      return "radix-" + r + " digit " + dg.j + ": send the blocks whose digit " + dg.j + " (of d\u2212p mod " + P + " in base " + r + ") is " + dg.v + " to rank p+" + d + ", receive from p\u2212" + d;
    }
    if (NODE_FAMILY.indexOf(alg) >= 0) return "hop " + step.round + " (" + (HOP_WORDS[step.round] || "relay") + "), " + hops;
    if (alg === "node_bruck")
      return step.intra === step.sends.length ? "Bruck round inside each node (" + (step.index === 0 ? "gather by destination node" : "radix " + (param(run, "radix") || "r") + ", distance " + d + ")") + ")"
                                              : "one message per pair of nodes, between nodes";
    if (alg.indexOf("parlinna") === 0)
      return step.intra === step.sends.length ? "ParLogNa round inside each node (distance " + d + ")" : "between nodes to the rank of equal local index";
    if (run.collective === "neighbor_alltoallv") {
      if (alg === "locality")
        return ["blocks to the own node go direct; blocks for another node gather at the rank relaying to it",
                "relay to relay: one message per pair of nodes", "the destination node's relay scatters to the destination ranks"][step.round] || "phase " + step.round;
      return "every message straight to its destination (persistent requests, all posted at the start)";
    }
    if (/crs/.test(run.collective)) {
      if (/_locality$/.test(alg))
        return step.round === 0 ? "one aggregate per pair of nodes, to the counterpart rank on the destination node" : "redistribution inside the destination node";
      return "every message straight to its destination" + ({ personalized: " (the receivers learned their counts by a reduce-scatter of flags)",
        nonblocking: " (synchronous sends; receivers probe until a non-blocking barrier ends)", rma: " (MPI_Put into per-source slots between two fences)" }[alg] || "");
    }
    return "round " + step.round + ": " + step.sends.length + " messages " + hops + (fx ? ", rank " + focus + " to rank " + fx.to : "");
  }

  // ------------------------------------------------------- buffer drawing
  function el(name, attrs, parent) {
    const e = document.createElementNS(SVGNS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // One buffer view: a row per rank (grouped by node): send buffer (slot per
  // destination), working buffer (blocks in transit), receive buffer (slot per source).
  function BufferView(svg, m, opts) {
    const P = m.P, labelW = 64, gap = 14;
    const tmax = Math.max(0, ...m.tempMax);
    const maxWidth = (opts && opts.width) || 1000;
    const cols = 2 * P + tmax;
    const cell = Math.max(3, Math.min(18, Math.floor((maxWidth - labelW - 2 * gap) / Math.max(cols, 1))));
    const rowH = Math.max(cell + 3, 8);
    const order = Array.from({ length: P }, (_, i) => i).sort((a, b) => m.nodeOf[a] - m.nodeOf[b] || a - b);
    const x0 = { send: labelW, temp: labelW + P * cell + gap, recv: labelW + P * cell + gap + tmax * cell + (tmax ? gap : 0) };
    const width = x0.recv + P * cell + 4;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const defs = el("defs", {}, svg);
    const pat = el("pattern", { id: "hatch", width: 3, height: 3, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
    el("rect", { width: 3, height: 3, fill: "#fff" }, pat);
    el("line", { x1: 0, y1: 0, x2: 0, y2: 3, stroke: "#98a2b3", "stroke-width": 1 }, pat);
    let y = 18;
    const heads = [["send", P >= 8 ? "send buffer (slot: destination)" : "send"], ["temp", tmax >= 6 ? "working buffer" : tmax ? "work" : ""],
                   ["recv", P >= 8 ? "receive buffer (slot: source)" : "receive"]];
    heads.forEach(([a, t]) => {
      if (!t) return;
      const span = (a === "temp" ? tmax : P) * cell;
      const e = el("text", { x: x0[a], y: 12, class: "area" }, svg);
      e.textContent = t;
      e.style.fontSize = Math.max(5, Math.min(11, (1.7 * span) / t.length)) + "px";
    });
    const cells = [];  // {rect, text, rank, area, slot}
    let prevNode = null;
    const showText = cell >= 12;
    order.forEach((r) => {
      if (m.nodes > 1 && m.nodeOf[r] !== prevNode) {
        const span = order.filter((q) => m.nodeOf[q] === m.nodeOf[r]).length;
        el("rect", { x: 0, y: y - 1, width: width, height: span * rowH + 14, class: "nodeband", rx: 3 }, svg);
        el("text", { x: 2, y: y + 9, class: "lab" }, svg).textContent = "node " + m.nodeOf[r];
        y += 13; prevNode = m.nodeOf[r];
      }
      const g = el("g", { class: "rank", "data-rank": r, "data-node": m.nodeOf[r] }, svg);
      el("text", { x: labelW - 6, y: y + cell / 2 + 3, class: "lab", "text-anchor": "end" }, g).textContent = "rank " + r;
      [["send", P], ["temp", tmax], ["recv", P]].forEach(([area, n]) => {
        for (let i = 0; i < n; ++i) {
          const rect = el("rect", { class: "blk", x: x0[area] + i * cell + 0.5, y: y, width: cell - 1, height: cell - 1, rx: 1,
                                    "data-rank": r, "data-area": area, "data-slot": i }, g);
          const title = el("title", {}, rect);
          const text = showText ? el("text", { class: "cell", x: x0[area] + i * cell + cell / 2, y: y + cell / 2 - 0.5 }, g) : null;
          cells.push({ rect: rect, title: title, text: text, rank: r, area: area, slot: i });
        }
      });
      y += rowH;
    });
    svg.setAttribute("viewBox", "0 0 " + width + " " + (y + 4));
    // Outlines and labels scale with the cells, so 64 ranks stay legible.
    svg.style.setProperty("--sw", Math.max(0.7, Math.min(2.2, cell / 6)).toFixed(2));
    svg.style.setProperty("--lab", Math.max(4, Math.min(10, rowH + 1)) + "px");
    svg.style.maxWidth = width * (opts && opts.scale ? opts.scale : 1.6) + "px";
    const bySlot = new Map(cells.map((c) => [c.rank + ":" + c.area + ":" + c.slot, c]));

    function draw(k) {
      const h = m.states[k];
      const arrived = m.arrivals[k];
      const outgoing = new Set();
      if (k < m.steps.length) m.steps[k].sends.forEach((s) => s.blocks.forEach((b) => { if (h[b] === s.from) outgoing.add(b); }));
      const temps = Array.from({ length: P }, () => []);
      for (let b = 0; b < P * P; ++b) {
        const r = h[b];
        if (r >= 0 && r !== Math.floor(b / P) && r !== b % P) temps[r].push(b);
      }
      temps.forEach((list) => list.sort((u, v) => (u % P) - (v % P) || u - v));
      cells.forEach((c) => {
        let b = -1, holderHere = false;
        if (c.area === "send") { b = c.rank * P + c.slot; holderHere = h[b] === c.rank && c.slot !== c.rank; }
        else if (c.area === "recv") { b = c.slot * P + c.rank; holderHere = h[b] === c.rank; }
        else { const list = temps[c.rank]; b = c.slot < list.length ? list[c.slot] : -1; holderHere = b >= 0; }
        const exists = b >= 0 && m.present[b];
        let state;
        if (holderHere && exists) state = outgoing.has(b) ? "outgoing" : arrived.has(b) ? "arrived" : "held";
        else if (b >= 0 && !m.present[b] && c.area !== "temp" && !(c.area === "send" && c.slot === c.rank)) state = "zero";
        else state = "empty";
        c.rect.setAttribute("data-state", state);
        if (state === "empty" || state === "zero") {
          c.rect.removeAttribute("data-block");
          c.rect.removeAttribute("style");
          c.rect.removeAttribute("data-local");
        } else {
          c.rect.setAttribute("data-block", b);
          c.rect.style.fill = colourOf(Math.floor(b / P), P);
          if (Math.floor(b / P) === b % P) c.rect.setAttribute("data-local", "1"); else c.rect.removeAttribute("data-local");
        }
        const nb = b >= 0 ? m.bytesOf(b) : null;
        c.title.textContent = b < 0 ? "rank " + c.rank + ", working buffer: free" :
          "block " + blockName(b, P) + (nb !== null ? " (" + fmtBytes(nb) + ")" : "") + ", rank " + c.rank + " " +
          (c.area === "send" ? "send buffer" : c.area === "recv" ? "receive buffer" : "working buffer") + ": " + state;
        if (c.text) c.text.textContent = state === "empty" || state === "zero" ? "" : String(c.area === "recv" ? Math.floor(b / P) : b % P);
      });
    }
    return { draw: draw, bySlot: bySlot };
  }

  // ------------------------------------------------------- adjacency matrix
  function MatrixView(svg, m) {
    const P = m.P, size = 300, c = size / P;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", "0 0 " + size + " " + size);
    const cells = new Map();
    m.steps.forEach((s) => s.sends.forEach((t) => {
      const key = t.from * P + t.to;
      if (!cells.has(key)) {
        const r = el("rect", { class: "mcell", x: t.to * c, y: t.from * c, width: Math.max(c - 0.3, 0.7), height: Math.max(c - 0.3, 0.7),
                                "data-from": t.from, "data-to": t.to, "data-state": "" }, svg);
        cells.set(key, { rect: r, title: el("title", {}, r) });
      }
    }));
    // node boundaries
    for (let r = 1; r < P; ++r) {
      if (m.nodeOf[r] !== m.nodeOf[r - 1]) {
        el("line", { x1: r * c, y1: 0, x2: r * c, y2: size, stroke: "#344054", "stroke-width": 1 }, svg);
        el("line", { x1: 0, y1: r * c, x2: size, y2: r * c, stroke: "#344054", "stroke-width": 1 }, svg);
      }
    }
    function draw(k) {
      cells.forEach((v) => { v.rect.setAttribute("data-state", ""); v.title.textContent = ""; });
      for (let i = 0; i <= k && i < m.steps.length; ++i) {
        m.steps[i].sends.forEach((t) => {
          const v = cells.get(t.from * P + t.to);
          const now = i === k;
          if (now || v.rect.getAttribute("data-state") === "") v.rect.setAttribute("data-state", now ? "now-" + t.hop : "past");
          if (now) v.title.textContent = t.from + "\u2192" + t.to + ": " + t.blocks.length + " blocks, " + fmtBytes(t.bytes) + " (" + (t.hop === "intra" ? "inside a node" : "between nodes") + ")";
        });
      }
    }
    return { draw: draw };
  }

  // --------------------------------------------------------------- the page
  const models = new Map();
  const model = (id) => { if (!models.has(id)) models.set(id, replay(data.runs.find((r) => r.id === id))); return models.get(id); };
  const runLabel = (r) => r.algorithm + (r.params ? " (" + r.params + ")" : "") + ", " + r.collective + ", P=" + r.P;
  const allErrors = [];
  data.runs.forEach((r) => { const m = model(r.id); m.errors.forEach((e) => allErrors.push(r.algorithm + ": " + e)); });
  root.setAttribute("data-errors", allErrors.length);
  if (allErrors.length) {
    $("errors").hidden = false;
    $("errors").textContent = "The trace does not describe a complete exchange:\n" + allErrors.slice(0, 20).join("\n") +
      (allErrors.length > 20 ? "\n(" + (allErrors.length - 20) + " more)" : "");
  }

  function fillSelect(sel, runs, chosen) {
    sel.innerHTML = "";
    runs.forEach((r) => { const o = document.createElement("option"); o.value = r.id; o.textContent = runLabel(r); sel.appendChild(o); });
    if (chosen) sel.value = chosen;
  }

  // Animation view
  const anim = { m: null, buffers: null, matrix: null, k: 0, timer: null, focus: 0 };
  function showRun(id) {
    stop();
    const m = model(id);
    anim.m = m; anim.k = 0;
    $("run-select").value = id;
    anim.buffers = BufferView($("buffers"), m, { width: 1000 });
    anim.matrix = MatrixView($("matrix"), m);
    const fr = $("focus-rank");
    fr.innerHTML = "";
    for (let r = 0; r < m.P; ++r) { const o = document.createElement("option"); o.value = r; o.textContent = r; fr.appendChild(o); }
    anim.focus = 0;
    $("step-slider").max = m.steps.length;
    root.setAttribute("data-run", id);
    root.setAttribute("data-steps", m.steps.length);
    const run = m.run;
    $("run-summary").innerHTML = "";
    const s = $("run-summary");
    s.appendChild(document.createTextNode(run.collective + " with "));
    const c = document.createElement("code"); c.textContent = run.algorithm + (run.params ? " [" + run.params + "]" : ""); s.appendChild(c);
    s.appendChild(document.createTextNode(", P=" + m.P + (m.nodes > 1 ? " on " + m.nodes + " nodes" : " on one node") +
      (run.dist ? ", " + run.dist + " blocks, size " + run.size : "") + ": " + m.steps.length + " steps, " + m.messages +
      " messages, " + fmtBytes(m.bytesSent) + " sent" + (m.payload !== null ? " for " + fmtBytes(m.payload) + " of blocks" : "") + (run.command ? ". Ran: " : "")));
    if (run.command) { const cc = document.createElement("code"); cc.textContent = run.command; s.appendChild(cc); }
    go(0);
  }
  function go(k) {
    const m = anim.m;
    anim.k = Math.max(0, Math.min(k, m.steps.length));
    anim.buffers.draw(anim.k);
    anim.matrix.draw(anim.k);
    $("step-slider").value = anim.k;
    $("step-label").textContent = "state " + anim.k + " / " + m.steps.length + (anim.k === m.steps.length ? " (done)" : "");
    root.setAttribute("data-step", anim.k);
    drawInfo();
  }
  function drawInfo() {
    const m = anim.m, k = anim.k, info = $("info"), f = anim.focus;
    info.innerHTML = "";
    const add = (tag, text, cls) => { const e = document.createElement(tag); if (cls) e.className = cls; e.textContent = text; info.appendChild(e); return e; };
    const done = m.steps.slice(0, k);
    const sumB = done.reduce((n, s) => n + s.blockCount, 0), sumY = done.reduce((n, s) => n + s.byteCount, 0);
    const tb = m.tempBytes[k];
    if (k >= m.steps.length) {
      add("div", "Done after " + m.steps.length + " steps", "rule");
      add("div", m.errors.length ? m.errors.length + " problems in the trace (see the top of the page)" : "every block is at its destination");
    } else {
      const step = m.steps[k];
      add("div", "Next: step " + (k + 1) + " of " + m.steps.length + " (round " + step.round + ")");
      add("div", ruleText(m, step, f), "rule").id = "rule";
    }
    const t = document.createElement("table"); info.appendChild(t);
    const row = (a, b) => { const tr = t.insertRow(); tr.insertCell().textContent = a; tr.insertCell().textContent = b; };
    if (k < m.steps.length) {
      const step = m.steps[k];
      row("this step", step.sends.length + " messages (" + step.intra + " inside nodes, " + (step.sends.length - step.intra) + " between), " +
          step.blockCount + " blocks, " + fmtBytes(step.byteCount));
      const mine = step.sends.filter((s) => s.from === f);
      row("rank " + f + " sends", mine.length ? mine.map((s) => s.blocks.length + " blocks to " + s.to).join("; ") : "nothing");
    }
    row("so far", done.reduce((n, s) => n + s.sends.length, 0) + " messages, " + sumB + " block moves, " + fmtBytes(sumY));
    row("in total", m.messages + " messages, " + m.steps.reduce((n, s) => n + s.blockCount, 0) + " block moves, " + fmtBytes(m.bytesSent));
    row("working buffer now", "rank " + f + ": " + fmtBytes(tb[f]) + "; largest: " + fmtBytes(Math.max(...tb)));
    row("temporary (trace)", "rank " + f + ": " + fmtBytes(m.tracePeakOf[f]) + " peak; largest: " + fmtBytes(m.tracePeak) +
        (m.stagePeak ? "; staged per round up to " + fmtBytes(m.stagePeak) : ""));
    if (k < m.steps.length) {
      const list = document.createElement("div"); list.className = "transfers"; info.appendChild(list);
      m.steps[k].sends.slice().sort((a, b) => a.from - b.from || a.to - b.to).forEach((s) => {
        const d = document.createElement("div");
        d.className = "hop-" + s.hop;
        d.textContent = s.from + " \u2192 " + s.to + "  " + s.blocks.length + " blk  " + fmtBytes(s.bytes) + "  " + (s.hop === "intra" ? "intra-node" : "between nodes");
        list.appendChild(d);
      });
    }
  }
  function stop() { if (anim.timer) { clearInterval(anim.timer); anim.timer = null; } root.removeAttribute("data-playing"); }
  function play() {
    stop();
    if (anim.k >= anim.m.steps.length) go(0);
    root.setAttribute("data-playing", "1");
    anim.timer = setInterval(() => { if (anim.k >= anim.m.steps.length) stop(); else go(anim.k + 1); }, parseInt($("speed").value, 10));
  }
  fillSelect($("run-select"), data.runs, data.runs[0].id);
  $("run-select").addEventListener("change", (e) => showRun(e.target.value));
  $("btn-reset").addEventListener("click", () => { stop(); go(0); });
  $("btn-step").addEventListener("click", () => { stop(); go(anim.k + 1); });
  $("btn-back").addEventListener("click", () => { stop(); go(anim.k - 1); });
  $("btn-play").addEventListener("click", play);
  $("btn-stop").addEventListener("click", stop);
  $("step-slider").addEventListener("input", (e) => { stop(); go(parseInt(e.target.value, 10)); });
  $("focus-rank").addEventListener("change", (e) => { anim.focus = parseInt(e.target.value, 10); drawInfo(); });
  document.addEventListener("keydown", (e) => {
    if (e.target && /^(INPUT|SELECT)$/.test(e.target.tagName) && e.target.type !== "range") return;
    if (!$("view-anim").hidden) {
      if (e.key === "ArrowRight") { stop(); go(anim.k + 1); e.preventDefault(); }
      else if (e.key === "ArrowLeft") { stop(); go(anim.k - 1); e.preventDefault(); }
      else if (e.key === "Home") { stop(); go(0); e.preventDefault(); }
      else if (e.key === " ") { if (anim.timer) stop(); else play(); e.preventDefault(); }
    } else if (!$("view-compare").hidden) {
      if (e.key === "ArrowRight") { cmpGo(cmp.k + 1); e.preventDefault(); }
      else if (e.key === "ArrowLeft") { cmpGo(cmp.k - 1); e.preventDefault(); }
    }
  });

  // Side-by-side view: two runs on one slider, and their totals compared.
  const cmp = { a: null, b: null, va: null, vb: null, k: 0, timer: null };
  function cmpSetup() {
    cmp.a = model($("cmp-a").value); cmp.b = model($("cmp-b").value);
    cmp.va = BufferView($("cmp-a-svg"), cmp.a, { width: 620, scale: 1.2 });
    cmp.vb = BufferView($("cmp-b-svg"), cmp.b, { width: 620, scale: 1.2 });
    $("cmp-slider").max = Math.max(cmp.a.steps.length, cmp.b.steps.length);
    const t = $("cmp-table");
    t.innerHTML = "";
    const head = t.insertRow();
    ["", runLabel(cmp.a.run), runLabel(cmp.b.run)].forEach((x) => { const th = document.createElement("th"); th.textContent = x; head.appendChild(th); });
    const metric = (name, fa, fb, fmt, lowerBetter) => {
      const tr = t.insertRow(); tr.insertCell().textContent = name;
      [fa, fb].forEach((v, i) => {
        const td = tr.insertCell(); td.textContent = fmt(v);
        if (lowerBetter && v < (i ? fa : fb)) td.className = "better";
      });
    };
    const id = (x) => String(x);
    const peak = (m) => Math.max(...m.tempBytes.map((b) => Math.max(...b)));
    const maxPerRank = (m) => Math.max(0, ...m.steps.map((s) => { const c = new Array(m.P).fill(0); s.sends.forEach((t) => { c[t.from] += 1; }); return Math.max(...c); }));
    metric("steps (rounds)", cmp.a.steps.length, cmp.b.steps.length, id, true);
    metric("messages", cmp.a.messages, cmp.b.messages, id, true);
    metric("messages between nodes", cmp.a.steps.reduce((n, s) => n + s.sends.length - s.intra, 0), cmp.b.steps.reduce((n, s) => n + s.sends.length - s.intra, 0), id, true);
    metric("most messages one rank sends in a step", maxPerRank(cmp.a), maxPerRank(cmp.b), id, true);
    metric("bytes sent", cmp.a.bytesSent, cmp.b.bytesSent, fmtBytes, true);
    metric("block moves", cmp.a.steps.reduce((n, s) => n + s.blockCount, 0), cmp.b.steps.reduce((n, s) => n + s.blockCount, 0), id, true);
    metric("bytes of blocks (payload)", cmp.a.payload, cmp.b.payload, fmtBytes, false);
    metric("largest working buffer", peak(cmp.a), peak(cmp.b), fmtBytes, true);
    metric("temporary peak (trace)", cmp.a.tracePeak, cmp.b.tracePeak, fmtBytes, true);
    const per = t.insertRow(); per.insertCell().textContent = "bytes per step";
    [cmp.a, cmp.b].forEach((m) => { per.insertCell().textContent = m.steps.map((s) => fmtBytes(s.byteCount)).join(", "); });
    cmpGo(0);
  }
  function cmpGo(k) {
    const K = Math.max(cmp.a.steps.length, cmp.b.steps.length);
    cmp.k = Math.max(0, Math.min(k, K));
    const ka = Math.min(cmp.k, cmp.a.steps.length), kb = Math.min(cmp.k, cmp.b.steps.length);
    cmp.va.draw(ka); cmp.vb.draw(kb);
    $("cmp-slider").value = cmp.k;
    $("cmp-label").textContent = "state " + cmp.k + " / " + K;
    const line = (m, kk) => m.run.algorithm + ": " + (kk >= m.steps.length ? "done in " + m.steps.length + " steps" : "next step " + (kk + 1) + " of " + m.steps.length + ": " + ruleText(m, m.steps[kk], 0));
    $("cmp-a-info").textContent = line(cmp.a, ka);
    $("cmp-b-info").textContent = line(cmp.b, kb);
    root.setAttribute("data-cmp-step", cmp.k);
  }
  function cmpStop() { if (cmp.timer) { clearInterval(cmp.timer); cmp.timer = null; } }
  if (data.runs.length >= 2) {
    fillSelect($("cmp-a"), data.runs, data.compare ? data.compare[0] : data.runs[0].id);
    fillSelect($("cmp-b"), data.runs, data.compare ? data.compare[1] : data.runs[1].id);
    $("cmp-a").addEventListener("change", cmpSetup);
    $("cmp-b").addEventListener("change", cmpSetup);
    $("cmp-reset").addEventListener("click", () => { cmpStop(); cmpGo(0); });
    $("cmp-step").addEventListener("click", () => { cmpStop(); cmpGo(cmp.k + 1); });
    $("cmp-stop").addEventListener("click", cmpStop);
    $("cmp-play").addEventListener("click", () => {
      cmpStop();
      cmp.timer = setInterval(() => { if (cmp.k >= +$("cmp-slider").max) cmpStop(); else cmpGo(cmp.k + 1); }, parseInt($("speed").value, 10));
    });
    $("cmp-slider").addEventListener("input", (e) => { cmpStop(); cmpGo(parseInt(e.target.value, 10)); });
  } else {
    $("tab-compare").disabled = true;
    $("tab-compare").title = "give mpix-vis two algorithms (--algo A,B)";
  }

  // Selection map: auto's pick over (P, block size), from the library's own
  // rule (mpix-bench --auto-map), and the fastest measured row where CSVs were given.
  function drawMap() {
    const map = data.map, coll = map.collective, panels = map.collectives[coll].ppn;
    const names = new Set();
    Object.values(panels).forEach((p) => p.pick.forEach((row) => row.forEach((n) => names.add(n))));
    (map.measured || []).forEach((e) => names.add(e.fastest));
    const palette = ["#4c6ef5", "#f59f00", "#12b886", "#e64980", "#7950f2", "#fa5252", "#15aabf", "#82c91e", "#fd7e14", "#868e96", "#be4bdb", "#228be6"];
    const colour = new Map(Array.from(names).sort().map((n, i) => [n, palette[i % palette.length]]));
    const open = (name) => {
      const id = map.runs && map.runs[name];
      if (id) { selectTab("anim"); showRun(id); }
      else alert(name + " was not run for this page (the MPI library's own collective, or mpix-vis ran with --no-map-runs)");
    };
    $("map-intro").textContent = "Which algorithm auto picks for " + coll + " (" + (coll === "alltoallv" ? "block size = the agreed largest mean block" : "block size") +
      "), computed by the library's own rule. Circles: the fastest measured row" + (map.measured_from && map.measured_from.length ? " in " + map.measured_from.join(", ") : " (no bench CSV given: --map-csv)") +
      "; a black ring where it differs from auto. Click a region to animate its algorithm.";
    const host = $("map-panels");
    host.innerHTML = "";
    Object.keys(panels).sort((a, b) => a - b).forEach((ppn) => {
      const p = panels[ppn];
      const div = document.createElement("div"); div.className = "map-panel"; host.appendChild(div);
      const h = document.createElement("h3"); h.textContent = ppn + " rank" + (ppn === "1" ? "" : "s") + " per node"; div.appendChild(h);
      const cw = 18, ch = 16, left = 46, top = 6, bottom = 40;
      const W = left + p.bytes.length * cw + 8, H = top + p.P.length * ch + bottom;
      const svg = el("svg", { viewBox: "0 0 " + W + " " + H, width: W * 1.3, height: H * 1.3, "data-ppn": ppn, class: "map" });
      div.appendChild(svg);
      p.P.forEach((P, i) => {
        const y = top + (p.P.length - 1 - i) * ch;
        el("text", { x: left - 4, y: y + ch / 2 + 3, class: "lab", "text-anchor": "end" }, svg).textContent = P;
        p.bytes.forEach((b, j) => {
          const name = p.pick[i][j];
          const r = el("rect", { class: "mapcell", x: left + j * cw, y: y, width: cw, height: ch, fill: colour.get(name),
                                 "data-algorithm": name, "data-p": P, "data-bytes": b, "data-ppn": ppn }, svg);
          el("title", {}, r).textContent = "P=" + P + ", " + fmtBytes(b) + ", " + ppn + " per node: auto picks " + name;
          r.addEventListener("click", () => open(name));
        });
      });
      p.bytes.forEach((b, j) => { if (j % 2 === 0) el("text", { x: left + j * cw + cw / 2, y: top + p.P.length * ch + 12, class: "lab", "text-anchor": "middle" }, svg).textContent = fmtBytes(b).replace(" ", ""); });
      el("text", { x: left, y: H - 6, class: "lab" }, svg).textContent = "block size \u2192   (rows: P)";
      (map.measured || []).filter((e) => String(e.ppn) === ppn).forEach((e) => {
        const i = p.P.indexOf(e.P), j = p.bytes.indexOf(e.size);
        if (i < 0 || j < 0) return;
        const autoPick = p.pick[i][j];
        const c = el("circle", { class: "measured", cx: left + j * cw + cw / 2, cy: top + (p.P.length - 1 - i) * ch + ch / 2, r: 5,
                                 fill: colour.get(e.fastest), "data-algorithm": e.fastest, "data-agrees": e.fastest === autoPick ? "yes" : "no" }, svg);
        el("title", {}, c).textContent = "measured P=" + e.P + ", " + fmtBytes(e.size) + ": fastest " + e.fastest + " " + e.us.toFixed(1) + " us (" + e.source + "); auto picks " + autoPick +
          (e.times[autoPick] !== undefined ? " (" + e.times[autoPick].toFixed(1) + " us)" : "");
        c.addEventListener("click", () => open(e.fastest));
      });
    });
    const lg = $("map-legend"); lg.innerHTML = "";
    colour.forEach((c, n) => {
      const s = document.createElement("span"); s.setAttribute("data-algorithm", n);
      const i = document.createElement("i"); i.className = "sw"; i.style.background = c; s.appendChild(i);
      s.appendChild(document.createTextNode(n + (map.runs && map.runs[n] ? "" : " (not animated)")));
      s.addEventListener("click", () => open(n));
      lg.appendChild(s);
    });
  }

  function selectTab(name) {
    ["anim", "compare", "map"].forEach((t) => {
      $("view-" + t).hidden = t !== name;
      $("tab-" + t).classList.toggle("active", t === name);
    });
    root.setAttribute("data-view", name);
    if (name === "compare" && !cmp.a) cmpSetup();
    if (name === "anim") stop();
  }
  $("tab-anim").addEventListener("click", () => selectTab("anim"));
  $("tab-compare").addEventListener("click", () => { if (!$("tab-compare").disabled) selectTab("compare"); });
  if (data.map) { $("tab-map").addEventListener("click", () => selectTab("map")); drawMap(); }
  else { $("tab-map").disabled = true; $("tab-map").title = "made with --no-map"; }
  $("footer").textContent = data.generator + ": every block s\u2192d starts in rank s's send buffer; a traced round moves the blocks it lists from the sending rank to its peer. " +
    "Data from real runs of the mpix library (trace hint); nothing here is made up.";
  selectTab("anim");
  showRun(data.runs[0].id);
  root.setAttribute("data-ready", "1");
})();
