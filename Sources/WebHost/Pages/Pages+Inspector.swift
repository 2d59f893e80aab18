extension Pages {
    static let inspectorBody = #"""
    <header class="top"><b>flowd inspector</b><span class="meta" id="meta">attaching…</span><span id="status"></span>
    <button id="record">● Record</button><a id="download" hidden>download recording</a></header>
    <section id="timeline">
      <div class="bar"><b>Timeline</b>
        <button id="tl-prev" title="the input before">◀</button>
        <input type="range" id="tl-slider" min="0" max="0" value="0" step="1">
        <button id="tl-next" title="the next input">▶</button>
        <button id="tl-live" class="on" title="back to the live app">Live</button>
        <span id="tl-count"></span>
      </div>
      <canvas id="tl-strip" height="14"></canvas>
      <div id="tl-label" class="hint">live: the app as it is now</div>
      <div id="tl-detail" hidden>
        <div id="tl-change"></div>
        <details id="tl-states-box"><summary>Screens and their states at this moment</summary><ol id="tl-states"></ol></details>
        <div class="row">inputs <input id="tl-from" size="6"> to <input id="tl-to" size="6">
          <button id="tl-export">Export as a recording</button><a id="tl-download" hidden></a>
          <a id="tl-preview" target="_blank" rel="noopener">Preview this moment's screen</a></div>
      </div>
    </section>
    <div id="layout">
      <section id="pictures">
        <h2>Flows</h2><div id="flows" class="picture"></div>
        <h2>Navigation</h2><div id="navigation" class="picture"></div>
        <h2>Connections</h2><table id="connections"></table>
      </section>
      <section id="side">
        <h2>Selected</h2><div id="selected"><p class="hint">Click a flow, a screen or a tab bar in the pictures.</p></div>
        <div id="result"></div>
        <h2>Events <span id="count"></span></h2>
        <div id="filters">
          <input id="filter-kinds" placeholder="kinds, e.g. place,dismiss">
          <input id="filter-flow" placeholder="flow" size="5"><input id="filter-screen" placeholder="screen" size="5">
          <input id="filter-text" placeholder="text">
          <label><input type="checkbox" id="filter-acks"> acks</label>
        </div>
        <ol id="events"></ol>
      </section>
    </div>
    """#

    static let inspectorStyle = #"""
    #layout { display:grid; grid-template-columns: minmax(0,3fr) minmax(320px,2fr); gap:16px; padding:16px; }
    h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); margin:12px 0 6px; }
    .picture { background:#fff; border:1px solid var(--line); border-radius:10px; overflow:auto; min-height:60px; }
    .picture svg { display:block; }
    .picture .window-caption { font-size:12px; color:var(--muted); padding:6px 10px 0; border-top:1px solid var(--line); }
    .picture .window-caption:first-child { border-top:0; }
    .picture .node rect { fill:#fff; stroke:#aab2c5; rx:7; }
    .picture .node { cursor:pointer; }
    .picture .node.visible rect { stroke:var(--accent); stroke-width:2; fill:#eef2ff; }
    .picture .node.pending rect { stroke:#d68910; stroke-dasharray:4 3; }
    .picture .node.selected rect { stroke:#111; stroke-width:2.5; }
    .picture .node text { font-size:11px; fill:var(--ink); }
    .picture .node text.sub { fill:var(--muted); }
    .picture path.edge { fill:none; stroke:#b9c0d0; }
    .picture path.edge.presented { stroke:#8e44ad; stroke-dasharray:5 4; }
    table { border-collapse:collapse; font-size:12px; background:#fff; width:100%; }
    td, th { border-bottom:1px solid var(--line); padding:3px 6px; text-align:left; }
    #selected { background:#fff; border:1px solid var(--line); border-radius:10px; padding:10px; font-size:13px; }
    #selected textarea { width:100%; font:12px ui-monospace, monospace; height:54px; }
    #selected .row { display:flex; gap:6px; flex-wrap:wrap; margin-top:6px; }
    #selected button, header button { border:1px solid var(--line); background:#fff; border-radius:7px; padding:4px 10px; }
    #result { font-size:12px; min-height:1.2em; margin-top:6px; }
    #result.bad { color:var(--bad); }
    #filters { display:flex; gap:6px; flex-wrap:wrap; font-size:12px; }
    #filters input { font:inherit; padding:3px 6px; border:1px solid var(--line); border-radius:6px; }
    #events { list-style:none; margin:6px 0; padding:0; max-height:58vh; overflow:auto; font:12px ui-monospace, monospace;
              background:#fff; border:1px solid var(--line); border-radius:10px; }
    #events li { padding:3px 8px; border-bottom:1px solid #eef0f4; }
    #events li .kind { display:inline-block; min-width:128px; color:var(--accent); }
    #events li.lagged { color:var(--bad); }
    .hint { color:var(--muted); margin:0; }
    .hint.padded { padding:8px; }
    header button.on { color:var(--bad); border-color:var(--bad); }
    #timeline { margin:12px 16px 0; background:#fff; border:1px solid var(--line); border-radius:10px; padding:8px 10px; font-size:13px; }
    #timeline .bar { display:flex; gap:8px; align-items:center; }
    #timeline .bar input[type=range] { flex:1; }
    #timeline button { border:1px solid var(--line); background:#fff; border-radius:7px; padding:2px 9px; }
    #timeline button.on { color:#fff; background:var(--accent); border-color:var(--accent); }
    #tl-strip { width:100%; height:14px; display:block; margin:6px 0 4px; cursor:pointer; }
    #tl-label { font:12px ui-monospace, monospace; white-space:pre-wrap; word-break:break-all; }
    #tl-change { font-size:12px; margin:4px 0; }
    #tl-change span { display:inline-block; margin-right:10px; }
    #tl-states { margin:4px 0; padding-left:22px; font:12px ui-monospace, monospace; max-height:180px; overflow:auto; }
    #tl-states li { word-break:break-all; }
    #tl-states-box summary { font-size:12px; cursor:pointer; color:var(--muted); }
    #tl-detail .row { display:flex; gap:6px; align-items:center; flex-wrap:wrap; font-size:12px; }
    #tl-detail input { font:inherit; padding:2px 5px; border:1px solid var(--line); border-radius:6px; }
    body.past .picture { background:#fbf8ef; }
    #selected pre { font:12px ui-monospace, monospace; white-space:pre-wrap; word-break:break-all; margin:4px 0; }
    """#

    static let inspectorScript = #"""
    const events = [];
    // `tree` is what the pictures show: the live tree, or a moment's when the timeline is in the past.
    let tree = null, liveTree = null, shapes = {}, selection = null, socket = null;
    // The history of inputs (the timeline: `past`), and the moment shown (null: live).
    let past = { inputs: [], count: 0, fromCheckpoint: false, epoch: 0 }, viewing = null, moment = null, historyAsked = false;
    const $ = (id) => document.getElementById(id);
    const num = (value) => Number(value || 0);

    function connect() {
      const url = new URL("/ws/inspector", location.href);
      url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
      url.searchParams.set("token", token);
      socket = new WebSocket(url);
      socket.onmessage = (event) => receive(JSON.parse(event.data));
      socket.onclose = (event) => status("disconnected" + (event.reason ? ": " + event.reason : ""), "bad");
    }
    function send(message) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(message)); }
    function status(text, kind) { $("status").textContent = text; $("status").className = kind || ""; }

    function receive(message) {
      switch (message.type) {
      case "hello": keepToken(); $("meta").textContent = message.app + " · " + message.server + " · " + message.socket; status("live", "ok"); askHistory(1); break;
      case "shapes": shapes = message.shapes; break;
      case "tree":
        liveTree = message.tree;
        if (viewing === null) { tree = liveTree; drawTree(); }
        askHistory(past.inputs.length + 1);
        break;
      case "history": takeHistory(message.history); break;
      case "moment":
        if (viewing === null || num(message.moment.index) !== viewing) break;
        // Numbered again since the page listed it (the journal was compacted): list it again.
        if (num(message.moment.epoch) !== past.epoch) { past = { inputs: [], count: 0, fromCheckpoint: false, epoch: 0 }; askHistory(1); live(); break; }
        moment = message.moment; tree = moment.tree || {}; drawTree(); drawMoment();
        break;
      case "exported":
        $("tl-download").href = message.url; $("tl-download").hidden = false;
        $("tl-download").textContent = "download inputs " + message.from + " to " + message.to + " (" + message.bytes + " bytes)";
        break;
      case "event": events.push(message.event); if (events.length > 2000) events.shift(); drawEvents(); break;
      case "result":
        $("result").textContent = message.action + ": " + message.message;
        $("result").className = message.ok ? "" : "bad";
        // A history question refused: the next tree asks again.
        if (message.action === "history") historyAsked = false;
        break;
      case "recording":
        if (message.state === "started") { $("record").textContent = "■ Stop recording"; $("record").classList.add("on"); $("download").hidden = true; }
        else {
          $("record").textContent = "● Record"; $("record").classList.remove("on");
          // No url: flowd-web refused to keep it, and a result says why.
          if (message.url) {
            $("download").href = message.url; $("download").hidden = false;
            $("download").textContent = "download recording (" + message.bytes + " bytes)";
          }
        }
        break;
      case "closed": status(message.text, "bad"); break;
      }
    }

    // MARK: timeline

    const kindColours = { "output": "#3b5bdb", "navigation": "#0ca678", "dismissal completed": "#adb5bd", "screen lost": "#e03131",
      "terminate": "#e8590c", "terminate all": "#e8590c", "open link": "#9c36b5" };

    // Asks for the inputs from `from` on; one question at a time (the next tree asks again).
    function askHistory(from) {
      if (historyAsked) return;
      historyAsked = true;
      send({ type: "history", from });
    }

    function takeHistory(answer) {
      historyAsked = false;
      const inputs = answer.inputs || [], count = num(answer.count), fromCheckpoint = !!answer.fromCheckpoint, epoch = num(answer.epoch);
      // Numbered again (the journal was compacted): the list starts over, from input 1.
      if (epoch !== past.epoch || (inputs.length && num(inputs[0].index) > past.inputs.length + 1)) {
        const wasViewing = viewing !== null && past.epoch !== 0;
        past = { inputs: [], count: 0, fromCheckpoint, epoch };
        if (wasViewing) live();
        if (inputs.length && num(inputs[0].index) !== 1) { askHistory(1); return; }
      }
      for (const input of inputs) if (num(input.index) === past.inputs.length + 1) past.inputs.push(input);
      past.count = count;
      const slider = $("tl-slider");
      slider.max = count;
      if (viewing === null) slider.value = count;
      $("tl-count").textContent = count + " input" + (count === 1 ? "" : "s") + (fromCheckpoint ? " since the checkpoint" : "")
        + (answer.stopped ? " (stops early: " + answer.stopped + ")" : "");
      drawStrip();
    }

    function drawStrip() {
      const canvas = $("tl-strip"), width = canvas.clientWidth || 600;
      canvas.width = width;
      const context = canvas.getContext("2d");
      context.clearRect(0, 0, width, canvas.height);
      const count = past.inputs.length;
      past.inputs.forEach((input, i) => {
        context.fillStyle = kindColours[input.kind] || "#868e96";
        const x = count <= 1 ? 0 : Math.round((i + 1) / count * (width - 3));
        context.fillRect(x, 2, 2, canvas.height - 4);
      });
      if (viewing !== null && count) {
        context.fillStyle = "#111";
        context.fillRect(Math.round(viewing / count * (width - 3)), 0, 3, canvas.height);
      }
    }

    // Shows moment `index` (0: the start): asked of the daemon, which rebuilds it in a scratch runtime.
    function view(index) {
      index = Math.max(0, Math.min(past.count, index));
      viewing = index; moment = null;
      document.body.classList.add("past");
      $("tl-live").classList.remove("on");
      $("tl-slider").value = index;
      $("tl-detail").hidden = false;
      $("tl-from").value = $("tl-from").value || 1;
      $("tl-to").value = Math.max(1, index);
      $("tl-preview").href = "/preview?moment=" + index + "&token=" + encodeURIComponent(token);
      status("viewing moment " + index + " (read-only)", "");
      const input = past.inputs[index - 1];
      $("tl-label").textContent = index === 0 ? "moment 0: the start" + (past.fromCheckpoint ? " (the journal's checkpoint)" : "") : label(input, index);
      drawStrip();
      send({ type: "moment", index });
    }

    function label(input, index) {
      if (!input) return "moment " + index;
      const time = num(input.timeUnixNanos) ? new Date(num(input.timeUnixNanos) / 1e6).toISOString().slice(11, 23) : "-";
      const payload = input.payload && input.payload.contentType && input.payload.contentType.includes("json") ? " " + atobText(input.payload.data) : "";
      return "moment " + index + " · " + time + " · " + input.kind + (input.flowId ? " · flow " + num(input.flowId) + " " + input.flowType : "") +
        (input.screenId ? " · screen " + num(input.screenId) + " " + input.screenKind : "") + payload;
    }

    // A protobuf bytes field in the JSON mapping (base64) as UTF-8 text.
    function atobText(data) {
      try { return new TextDecoder().decode(Uint8Array.from(atob(data || ""), (c) => c.charCodeAt(0))); } catch (e) { return ""; }
    }

    function drawMoment() {
      const change = (moment.input || {}).change || {};
      const parts = [["placed", change.placed], ["updated", change.updated], ["moved", change.moved], ["dismissed", change.dismissed],
        ["flows started", change.flowsStarted], ["flows ended", change.flowsEnded]].filter(([, ids]) => ids && ids.length);
      $("tl-change").innerHTML = parts.length ? "changed: " + parts.map(([word, ids]) => `<span class="change-${word.replace(" ", "-")}">${word} ${ids.map(num).join(", ")}</span>`).join("")
        : (viewing === 0 ? "" : "changed nothing on screen");
      $("connections").innerHTML = '<tr><td class="hint">a moment of the history: no connections</td></tr>';
      $("tl-states").innerHTML = (moment.screens || []).map((screen) =>
        `<li data-screen="${num(screen.id)}">screen ${num(screen.id)} ${escape(screen.kind)} (flow ${num(screen.flowId)}): ${escape(atobText(screen.state && screen.state.data))}</li>`).join("");
    }

    function live() {
      viewing = null; moment = null;
      document.body.classList.remove("past");
      $("tl-live").classList.add("on");
      $("tl-detail").hidden = true;
      $("tl-label").textContent = "live: the app as it is now";
      $("tl-slider").value = past.count;
      status("live", "ok");
      tree = liveTree; drawTree(); drawStrip();
    }

    $("tl-slider").addEventListener("input", () => view(num($("tl-slider").value)));
    $("tl-prev").addEventListener("click", () => view((viewing === null ? past.count : viewing) - 1));
    $("tl-next").addEventListener("click", () => view((viewing === null ? past.count : viewing) + 1));
    $("tl-live").addEventListener("click", live);
    $("tl-strip").addEventListener("click", (event) => {
      const box = $("tl-strip").getBoundingClientRect();
      view(Math.round((event.clientX - box.left) / box.width * past.count));
    });
    $("tl-export").addEventListener("click", () => send({ type: "export", from: num($("tl-from").value), to: num($("tl-to").value) }));
    window.addEventListener("resize", drawStrip);

    $("record").addEventListener("click", () => send({ type: $("record").classList.contains("on") ? "recordStop" : "recordStart" }));
    for (const id of ["filter-kinds", "filter-flow", "filter-screen", "filter-text", "filter-acks"]) $(id).addEventListener("input", drawEvents);

    // MARK: pictures

    const W = 168, H = 46, GAP_X = 14, GAP_Y = 34;

    // A tidy tree: leaves left to right, each parent centred over its children.
    function layout(root, children) {
      const placed = [];
      let next = 0;
      (function visit(node, depth) {
        const kids = children(node);
        const entries = kids.map((kid) => visit(kid.node, depth + 1));
        const x = entries.length ? (entries[0].x + entries[entries.length - 1].x) / 2 : (next++) * (W + GAP_X);
        const entry = { node, x, y: depth * (H + GAP_Y), kids: entries.map((e, i) => ({ entry: e, presented: kids[i].presented })) };
        placed.push(entry);
        return entry;
      })(root, 0);
      return placed;
    }

    function svgPicture(container, placed, describe) {
      const ns = "http://www.w3.org/2000/svg";
      const width = Math.max(...placed.map((e) => e.x)) + W + 16, height = Math.max(...placed.map((e) => e.y)) + H + 16;
      const svg = document.createElementNS(ns, "svg");
      svg.setAttribute("width", width); svg.setAttribute("height", height);
      const g = document.createElementNS(ns, "g"); g.setAttribute("transform", "translate(8,8)"); svg.append(g);
      for (const entry of placed) for (const kid of entry.kids) {
        const path = document.createElementNS(ns, "path");
        const x1 = entry.x + W / 2, y1 = entry.y + H, x2 = kid.entry.x + W / 2, y2 = kid.entry.y;
        path.setAttribute("d", `M${x1},${y1} C${x1},${y1 + 18} ${x2},${y2 - 18} ${x2},${y2}`);
        path.setAttribute("class", "edge" + (kid.presented ? " presented" : ""));
        g.append(path);
      }
      for (const entry of placed) {
        const info = describe(entry.node);
        const node = document.createElementNS(ns, "g");
        node.setAttribute("class", "node " + (info.classes || ""));
        node.setAttribute("transform", `translate(${entry.x},${entry.y})`);
        node.dataset.kind = info.kind; node.dataset.id = info.id;
        const rect = document.createElementNS(ns, "rect"); rect.setAttribute("width", W); rect.setAttribute("height", H);
        const title = document.createElementNS(ns, "text"); title.setAttribute("x", 8); title.setAttribute("y", 18); title.textContent = info.title;
        const sub = document.createElementNS(ns, "text"); sub.setAttribute("x", 8); sub.setAttribute("y", 35); sub.setAttribute("class", "sub"); sub.textContent = info.sub || "";
        node.append(rect, title, sub);
        node.addEventListener("click", () => { selection = { kind: info.kind, id: info.id }; drawTree(); });
        if (selection && selection.kind === info.kind && selection.id === info.id) node.classList.add("selected");
        g.append(node);
      }
      container.replaceChildren(svg);
    }

    function drawTree() {
      if (!tree) return;
      if (tree.rootFlow) {
        svgPicture($("flows"), layout(tree.rootFlow, (f) => (f.children || []).map((node) => ({ node }))), (flow) => ({
          kind: "flow", id: num(flow.id), title: "#" + num(flow.id) + " " + flow.type,
          // Screen ids, written as ids (#) so that "screen #2" does not read as a count.
          sub: (flow.screenIds || []).length ? "running · shows screen" + (flow.screenIds.length === 1 ? " #" : "s #") + flow.screenIds.map(num).join(", #") : "running",
        }));
      } else $("flows").innerHTML = '<p class="hint padded">no flow runs</p>';
      // One picture per window: the main window, then each window a flow opened on a display.
      const pictures = windows().map((w) => {
        const caption = document.createElement("div"); caption.className = "window-caption";
        caption.textContent = w.display === "main" ? "the main window" : "window " + num(w.window.id) + " on the display " + w.display;
        const picture = document.createElement("div"); picture.className = "window-picture"; picture.dataset.display = w.display;
        svgPicture(picture, layout(w.window, (n) =>
          (n.children || []).map((node) => ({ node })).concat(n.presented ? [{ node: n.presented, presented: true }] : [])), describeNav);
        return [caption, picture];
      });
      $("navigation").replaceChildren(...pictures.flat());
      if (viewing !== null) { drawSelection(); return; }
      const rows = (tree.connections || []).map((c) => `<tr><td>${num(c.id)}</td><td>${c.role}${c.debugPower ? " (" + escape(c.debugPower) + ")" : ""}</td><td>${escape(c.name)}</td><td>${c.pid || ""}</td><td>${num(c.screens)}</td><td>${escape((c.provides || []).join(", "))}</td><td class="identity">${escape(peer(c.identity))}</td></tr>`);
      $("connections").innerHTML = "<tr><th>id</th><th>role</th><th>name</th><th>pid</th><th>screens</th><th>provides</th><th>peer</th></tr>" + rows.join("");
      drawSelection();
    }

    function describeNav(node) {
      const id = num(node.id);
      switch (node.kind) {
      case "NODE_KIND_WINDOW": {
        const other = (tree.otherWindows || []).find((w) => num(w.window && w.window.id) === id);
        return { kind: "window", id, title: other ? "window " + id : "window", sub: other ? "on the display " + other.display : "" };
      }
      case "NODE_KIND_STACK": return { kind: "stack", id, title: "stack " + id, sub: (node.children || []).length + " deep" };
      case "NODE_KIND_TAB_BAR": return { kind: "tabbar", id, title: "tab bar " + id, sub: "tab " + (num(node.selectedTab) + 1) + " of " + (node.children || []).length };
      default: {
        const s = node.screen || {};
        const pending = num(s.ackedSerial) < num(s.lastSerial);
        if (viewing !== null) return { kind: "screen", id, title: "screen " + id + " · " + s.kind,
          sub: "flow " + num(s.flowId) + " · serial " + num(s.lastSerial), classes: s.visible ? "visible" : "" };
        return { kind: "screen", id, title: "screen " + id + " · " + s.kind,
          sub: "conn " + num(s.connectionId) + " · acked " + num(s.ackedSerial) + "/" + num(s.lastSerial) + (s.delivery ? " · " + s.delivery : ""),
          classes: (s.visible ? "visible " : "") + (pending || s.dismissing ? "pending" : "") };
      }
      }
    }

    // Every window of the tree: the main one, then those flows opened on displays, oldest first.
    function windows() {
      return [{ window: tree.window || { kind: "NODE_KIND_WINDOW", id: "1" }, display: "main" }]
        .concat((tree.otherWindows || []).map((w) => ({ window: w.window || { kind: "NODE_KIND_WINDOW" }, display: w.display })));
    }
    // A node of any window.
    function findNode(id) {
      for (const w of windows()) { const found = findNav(w.window, id); if (found) return found; }
      return null;
    }

    function findNav(node, id) {
      if (!node) return null;
      if (num(node.id) === id) return node;
      for (const kid of (node.children || []).concat(node.presented ? [node.presented] : [])) { const found = findNav(kid, id); if (found) return found; }
      return null;
    }

    // Where screen `id` is: whether it is above its stack's root (back applies) and inside a modal
    // presentation (close modal applies); null when it is not in the tree.
    function placementOf(id) {
      for (const w of windows()) {
        const found = placementIn(w.window, id);
        if (found) return Object.assign(found, { otherWindow: w.display !== "main" });
      }
      return null;
    }
    function placementIn(root, id) {
      return (function visit(node, inModal) {
        if (!node) return null;
        const kids = node.children || [];
        for (let i = 0; i < kids.length; i++) {
          if (num(kids[i].id) === id) return { canGoBack: node.kind === "NODE_KIND_STACK" && i > 0, inModal };
          const found = visit(kids[i], inModal);
          if (found) return found;
        }
        if (node.presented) {
          if (num(node.presented.id) === id) return { canGoBack: false, inModal: true };
          return visit(node.presented, true);
        }
        return null;
      })(root, false);
    }

    function drawSelection() {
      const box = $("selected");
      if (!selection) return;
      // Rebuilt only when the selection or what it offers changes: keeps what is typed and the buttons under the pointer.
      const selected = selection.kind === "flow" ? null : findNode(selection.id);
      const where = selection.kind === "screen" ? placementOf(selection.id) : null;
      const signature = selection.kind + selection.id + "/" + (selected ? (selected.children || []).length + (selected.screen ? selected.screen.kind : "") : "")
        + (where ? (where.canGoBack ? "b" : "") + (where.inModal ? "m" : "") + (where.otherWindow ? "w" : "") : "")
        + (viewing === null ? "" : "@" + viewing + (moment ? "+" : ""));
      if (box.dataset.for === signature) return;
      box.dataset.for = signature;
      box.replaceChildren();
      const add = (html) => { box.insertAdjacentHTML("beforeend", html); };
      const button = (label, id, message) => {
        const b = document.createElement("button"); b.textContent = label; b.id = id;
        // A message built at the click (the inject form's) may be null: nothing to send, and the page says why.
        b.addEventListener("click", () => { const built = typeof message === "function" ? message() : message; if (built) send(built); });
        return b;
      };
      if (viewing !== null) {
        // A moment of the history: what it was, and nothing that would change the live app.
        add(`<p>${escape(selection.kind)} <b>${selection.id}</b> at moment ${viewing} <span class="hint">(read-only)</span></p>`);
        const shown = moment && (moment.screens || []).find((screen) => num(screen.id) === selection.id);
        if (shown) add(`<label>State</label><pre id="moment-state">${escape(atobText(shown.state && shown.state.data))}</pre>`);
        return;
      }
      if (selection.kind === "flow") {
        add(`<p>Flow <b>#${selection.id}</b></p><label><input type="checkbox" id="animated" checked> animated</label>`);
        const row = document.createElement("div"); row.className = "row";
        row.append(button("Terminate flow", "terminate", () => ({ type: "terminate", flow: selection.id, animated: $("animated").checked })));
        box.append(row);
      } else if (selection.kind === "screen") {
        const node = findNode(selection.id);
        const kind = node && node.screen ? node.screen.kind : "";
        const offered = shapes[kind] || [];
        add(`<p>Screen <b>${selection.id}</b> (${escape(kind)})</p><label>Output JSON</label>`);
        const select = document.createElement("select"); select.id = "shape";
        for (const shape of offered) { const o = document.createElement("option"); o.textContent = shape; select.append(o); }
        const area = document.createElement("textarea"); area.id = "output"; area.value = offered[0] || "{}";
        select.addEventListener("change", () => { area.value = select.value; });
        if (offered.length) box.append(select);
        box.append(area);
        const row = document.createElement("div"); row.className = "row";
        row.append(
          button("Inject output", "inject", () => { let output; try { output = JSON.parse(area.value); } catch (e) { $("result").textContent = "not JSON: " + e.message; $("result").className = "bad"; return null; } return { type: "inject", screen: selection.id, output }; }));
        // Only what applies where the screen is, as the terminal demo lists only the keys that do something.
        if (where && where.canGoBack) row.append(button("Back", "back", { type: "back", screen: selection.id }));
        if (where && where.inModal) row.append(button("Close modal", "close", { type: "closeModal", screen: selection.id }));
        if (where && where.otherWindow) row.append(button("Close window", "close-window", { type: "closeWindow", screen: selection.id }));
        box.append(row);
        if (!(where && (where.canGoBack || where.inModal))) add('<p class="hint" id="no-navigation">Back and Close modal do not apply here: the screen is not above a stack\'s root, nor in a modal.</p>');
      } else if (selection.kind === "tabbar") {
        const node = findNode(selection.id);
        add(`<p>Tab bar <b>${selection.id}</b></p>`);
        const row = document.createElement("div"); row.className = "row";
        (node ? node.children || [] : []).forEach((_, index) => row.append(button("Tab " + (index + 1), "tab-" + index, { type: "selectTab", screen: selection.id, index })));
        box.append(row);
      } else add(`<p class="hint">Nothing to do with a ${selection.kind}.</p>`);
    }

    // MARK: events

    function drawEvents() {
      const kinds = $("filter-kinds").value.split(",").map((k) => k.trim()).filter(Boolean);
      const flow = num($("filter-flow").value), screen = num($("filter-screen").value);
      const text = $("filter-text").value.toLowerCase(), acks = $("filter-acks").checked;
      const shown = events.filter((e) =>
        (kinds.length ? kinds.includes(e.kind) : (acks || e.kind !== "ack")) &&
        (!flow || e.flow === flow) && (!screen || e.screen === screen) &&
        (!text || JSON.stringify(e).toLowerCase().includes(text)));
      $("count").textContent = "(" + shown.length + " of " + events.length + ")";
      $("events").innerHTML = shown.slice(-300).reverse().map((e) => {
        if (e.kind === "lagged") return `<li class="lagged">lagged: ${e.dropped} events dropped</li>`;
        const about = [e.flow ? "flow " + e.flow : "", e.screen ? "screen " + e.screen : "", e.serial ? "#" + e.serial : ""].filter(Boolean).join(" ");
        return `<li data-kind="${e.kind}"><span class="seq">${e.seq}</span> <span class="kind">${e.kind}</span> ${escape(about)} ${escape(e.text || e.name || "")}${e.payload !== undefined ? " " + escape(JSON.stringify(e.payload)) : ""}</li>`;
      }).join("");
    }

    // Who a peer is (ConnectionInfo.identity), as flowctl tree prints it; unknown parts left out.
    function peer(identity) {
      if (!identity) return "";
      const parts = [`uid ${identity.uid || 0}`, `gid ${identity.gid || 0}`, `pid ${identity.pid || 0}`];
      if (identity.factory) parts.push(`spawned for ${identity.factory}`);
      if (identity.executable) parts.push(identity.executable);
      if (identity.unit) parts.push(`unit ${identity.unit}`); else if (identity.cgroup) parts.push(`cgroup ${identity.cgroup}`);
      if (identity.securityLabel) parts.push(`label ${identity.securityLabel}`);
      return parts.join(" ");
    }
    function escape(text) { return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }

    connect();
    """#
}
