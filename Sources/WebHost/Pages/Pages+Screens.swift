extension Pages {
    static let screensBody = #"""
    <header class="top"><b>flowd</b><span class="meta" id="meta">connecting…</span><span id="status"></span>
    <a id="inspector-link" target="_blank">inspector ↗</a></header>
    <main><div id="device"><div id="stage" data-screen-id="" data-animation="none"></div></div>
    <ul id="windows"></ul><p id="notice"></p></main>
    """#

    static let screensStyle = #"""
    main { display:flex; flex-direction:column; align-items:center; padding:24px; }
    #device { position:relative; width:390px; height:640px; background:#fff; border:1px solid var(--line); border-radius:22px;
              overflow:hidden; box-shadow:0 8px 30px rgba(20,30,60,.12); }
    #stage { position:absolute; inset:0; display:flex; flex-direction:column; }
    .empty { margin:auto; color:var(--muted); text-align:center; padding:24px; }
    .navbar { display:flex; align-items:center; gap:8px; min-height:44px; padding:6px 10px; border-bottom:1px solid var(--line); background:#fbfbfd; touch-action:none; }
    #back { border:0; background:none; color:var(--accent); padding:4px 6px; }
    #breadcrumb { color:var(--muted); font-size:12px; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
    .card { flex:1; padding:20px; overflow:auto; }
    .card h1 { font-size:22px; margin:0 0 8px; }
    .card p.body { white-space:pre-wrap; color:#384055; margin:0 0 16px; }
    .card label { display:block; font-size:13px; color:var(--muted); margin-bottom:4px; }
    .card input { width:100%; font:inherit; padding:8px 10px; border:1px solid var(--line); border-radius:8px; margin-bottom:16px; }
    .card .actions { display:flex; flex-direction:column; gap:8px; }
    .card .actions button { text-align:left; padding:10px 12px; border:1px solid var(--line); border-radius:10px; background:#fff; }
    .card .actions button:hover { border-color:var(--accent); }
    .tabbar { display:flex; border-top:1px solid var(--line); background:#fbfbfd; }
    .tabbar .tab { flex:1; padding:10px 4px; border:0; background:none; color:var(--muted); font-size:13px; }
    .tabbar .tab.selected { color:var(--accent); font-weight:600; }
    .backdrop { position:absolute; inset:0; background:rgba(20,25,40,.35); display:flex; flex-direction:column; justify-content:flex-end; }
    .backdrop .under { position:absolute; top:14px; left:0; right:0; text-align:center; color:#fff; font-size:13px; }
    .sheet { position:relative; height:92%; background:#fff; border-radius:16px 16px 0 0; display:flex; flex-direction:column; overflow:hidden; }
    .grabber { height:22px; display:flex; justify-content:center; align-items:center; touch-action:none; cursor:grab; }
    .grabber::before { content:""; width:40px; height:5px; border-radius:3px; background:#c8ccd6; }
    #close { position:absolute; right:10px; top:4px; border:0; background:none; font-size:20px; color:var(--muted); }
    .window-root .card { padding-top:28px; }
    @keyframes push { from { transform:translateX(100%); } to { transform:none; } }
    @keyframes pop { from { transform:none; } to { transform:translateX(100%); } }
    @keyframes present { from { transform:translateY(100%); } to { transform:none; } }
    @keyframes dismiss { from { transform:none; } to { transform:translateY(100%); } }
    .anim-push { animation: push .28s ease-out; }
    .anim-present { animation: present .3s ease-out; }
    .leaving { position:absolute; inset:0; background:#fff; pointer-events:none; }
    .anim-pop { animation: pop .25s ease-in forwards; }
    .anim-dismiss { animation: dismiss .25s ease-in forwards; }
    #notice { color:var(--muted); font-size:13px; max-width:390px; min-height:1em; }
    #windows { list-style:none; padding:0; margin:0; font-size:13px; max-width:390px; }
    #windows li { display:flex; gap:8px; align-items:center; padding:6px 10px; border:1px solid var(--line); border-radius:10px; background:#fff; margin-top:6px; }
    #windows li .title { flex:1; }
    #close-window { margin-left:auto; border:0; background:none; font-size:18px; color:var(--muted); }
    body.preview #device { pointer-events:none; }
    """#

    static let screensScript = #"""
    const params = new URLSearchParams(location.search);
    const kinds = params.get("kinds") || "";
    // The display this tab shows (`?display=customer`): the windows flows open on it. Without one
    // (or `main`) the tab shows the app's main window and hosts the screens (docs/web.md, "Several windows").
    const shownDisplay = params.get("display") && params.get("display") !== "main" ? params.get("display") : null;
    document.body.dataset.display = shownDisplay || "main";
    const screens = new Map();          // id -> screen view (as flowd-web sends it)
    const stage = document.getElementById("stage");
    const statusLine = document.getElementById("status");
    let socket = null;
    let drawnId = null;
    document.getElementById("inspector-link").href = "/inspector";

    function setStatus(text, kind) { statusLine.textContent = text; statusLine.className = kind || ""; }
    function notice(text) { document.getElementById("notice").textContent = text; }
    // A moment of the history (/preview?moment=N, from the inspector's timeline): drawn, never driven.
    const previewMoment = location.pathname === "/preview" ? params.get("moment") : null;
    if (previewMoment !== null) document.body.classList.add("preview");

    function send(message) { if (previewMoment === null && socket && socket.readyState === 1) socket.send(JSON.stringify(message)); }

    function connect() {
      if (previewMoment !== null) {
        const url = new URL("/ws/preview", location.href);
        url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
        url.searchParams.set("token", token);
        url.searchParams.set("moment", previewMoment);
        socket = new WebSocket(url);
        socket.onmessage = (event) => receive(JSON.parse(event.data));
        return;
      }
      const resume = shownDisplay ? "" : sessionStorage.getItem("flowd-resume") || "";
      const url = new URL("/ws/screens", location.href);
      url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
      url.searchParams.set("token", token);
      if (shownDisplay) url.searchParams.set("display", shownDisplay);
      // The tab is a display: the size of the monitor it is on, in pixels.
      url.searchParams.set("width", Math.round(screen.width * devicePixelRatio));
      url.searchParams.set("height", Math.round(screen.height * devicePixelRatio));
      if (kinds) url.searchParams.set("kinds", kinds);
      if (resume) url.searchParams.set("resume", resume);
      socket = new WebSocket(url);
      socket.onmessage = (event) => receive(JSON.parse(event.data));
      socket.onclose = (event) => {
        setStatus("disconnected" + (event.reason ? ": " + event.reason : ""), "bad");
        document.body.dataset.closed = event.code + " " + event.reason;
      };
    }

    // Every command with a serial is acked once the page shows its effect (a display tab's are
    // acked by the tab that hosts the screens, which lists the window).
    function receive(message) {
      switch (message.type) {
      case "display":
        keepToken();
        document.getElementById("meta").textContent = "the display " + message.display;
        document.title = "flowd · " + message.display;
        setStatus("connected", "ok");
        return;
      case "preview":
        keepToken();
        document.getElementById("meta").textContent = message.app + " · " + message.text;
        document.body.dataset.moment = message.moment;
        setStatus("moment " + message.moment + " of " + message.count + " (read-only)", "");
        notice("a moment of the history, read-only: nothing here reaches the app");
        return;
      case "hello":
        keepToken();
        sessionStorage.setItem("flowd-resume", message.resumeToken || "");
        document.getElementById("meta").textContent =
          message.app + " · " + message.server + " · connection " + message.connection + (message.resumed ? " (resumed)" : "");
        setStatus("connected", "ok");
        document.body.dataset.connection = message.connection;
        // Opened at a place (a bookmark, an address typed or shared, a reload that could not resume):
        // offer to open it through the app's flows. Asked, not done: any site may link to this address,
        // and opening a place unwinds what is open above it. A resumed page is already there.
        if (!message.resumed && location.hash.length > 1) offerToOpen(location.hash.slice(1));
        break;
      // Where the user is, in the address bar: replaced, not pushed (the flows own back: docs/web.md).
      case "where":
        document.body.dataset.place = message.link || "";
        history.replaceState(null, "", location.pathname + location.search + (message.link ? "#" + message.link : ""));
        return;
      // `data-animation` names the transition of the last change to the drawn screen ("none": drawn at once).
      case "place":
        screens.set(message.screen.id, message.screen);
        draw(message.screen.placement.visible ? (message.animated ? transitionIn(message.screen) : "none") : null);
        break;
      case "update":
      case "move":
        screens.set(message.screen.id, message.screen);
        draw(null);
        break;
      case "dismiss": {
        const gone = screens.get(message.id);
        screens.delete(message.id);
        const wasDrawn = gone && gone.id === drawnId;
        draw(wasDrawn ? (message.animated ? transitionOut(gone) : "none") : null);
        break;
      }
      case "forget":
        screens.delete(message.id);
        draw(null);
        return;
      case "notice": notice(message.text); return;
      case "closed": setStatus(message.text, "bad"); notice(message.text); return;
      }
      if (message.serial && !shownDisplay) send({ type: "ack", screen: message.screen ? message.screen.id : message.id, serial: message.serial });
    }

    const inModal = (view) => view.placement.path.some((step) => step.step === "modal");
    // The root of a modal (or of a stack or tab in one) slides up; anything else is a push.
    const transitionIn = (view) => (inModal(view) && view.placement.index === 0) ? "present" : "push";
    const transitionOut = (view) => (inModal(view) && view.placement.index === 0) ? "dismiss" : "pop";
    const lastStep = (view) => view.placement.path[view.placement.path.length - 1];

    // The display of the window a screen is in: null for the main window.
    const displayOf = (view) => view.placement.path[0].display || null;
    const windowOf = (view) => view.placement.path[0].id;
    // The screen to draw: the visible one in this tab's window (with several windows on one display,
    // the newest window's).
    function visible() {
      let best = null;
      for (const view of screens.values()) {
        if (!view.placement.visible || displayOf(view) !== shownDisplay) continue;
        if (!best || windowOf(view) > windowOf(best)) best = view;
      }
      return best;
    }

    // The windows on other displays, each with the title of its visible screen and a link to its tab.
    function drawWindows() {
      const list = document.getElementById("windows");
      const byDisplay = new Map();
      for (const view of screens.values()) {
        const display = displayOf(view);
        if (display === shownDisplay || display === null) continue;
        if (!byDisplay.has(display)) byDisplay.set(display, null);
        if (view.placement.visible) byDisplay.set(display, view);
      }
      list.replaceChildren();
      for (const [display, view] of [...byDisplay.entries()].sort()) {
        const item = el("li", "window");
        item.dataset.display = display;
        item.append(el("span", "title", "On the display " + display + ": " + (view ? view.title : "…")));
        const link = el("a", "", "open its tab ↗");
        link.target = "_blank";
        link.href = (previewMoment !== null ? "/preview?moment=" + previewMoment + "&" : "/?") + "display=" + encodeURIComponent(display);
        item.append(link);
        list.append(item);
      }
    }

    function draw(animation) {
      const view = visible();
      const leaving = animation === "pop" || animation === "dismiss" ? stage.cloneNode(true) : null;
      stage.replaceChildren();
      stage.dataset.screenId = view ? view.id : "";
      stage.dataset.kind = view ? view.kind : "";
      if (animation) stage.dataset.animation = animation;
      drawnId = view ? view.id : null;
      drawWindows();
      if (!view && shownDisplay) {
        stage.append(el("div", "empty", "No window is open on the display " + shownDisplay + ". A window a flow opens on it shows here."));
      } else if (!view) {
        const empty = el("div", "empty", [...screens.values()].some((other) => displayOf(other) === null)
          ? "This tab's screens are covered by a screen another host shows."
          : "No screen here yet. flowd places each screen on the oldest host that provides its kind.");
        stage.append(empty);
      } else {
        stage.append(frame(view, animation));
      }
      // The screen that goes slides out above the stage, so the redraws that follow do not cut it short.
      if (leaving) {
        leaving.removeAttribute("id");
        for (const key of Object.keys(leaving.dataset)) delete leaving.dataset[key];
        leaving.className = "leaving anim-" + animation;
        leaving.addEventListener("animationend", () => leaving.remove());
        document.getElementById("device").append(leaving);
      }
    }

    // The chrome the placement implies, outside in: window, tab bar, modal sheet, stack.
    function frame(view, animation) {
      const path = view.placement.path;
      let content = card(view);
      const stackStep = lastStep(view).step === "stack" ? lastStep(view) : null;
      if (stackStep) content = stacked(view, stackStep, content);
      if (animation === "push" || animation === "present") content.classList.add("anim-" + animation);
      // Wrap from the innermost container outwards.
      for (let i = path.length - 1; i >= 0; i--) {
        const step = path[i];
        if (step.step === "tab") content = tabbed(view, step, content);
        else if (step.step === "modal") content = sheet(view, content);
      }
      if (path.length === 1) content.classList.add("window-root");
      // A window a flow opened: a title bar naming its display, with a close button (the user's CloseWindow).
      if (displayOf(view) !== null) {
        const box = el("div", "opened-window");
        box.style.cssText = "display:flex;flex-direction:column;flex:1;min-height:0;position:relative";
        const bar = el("div", "navbar window-bar", "the display " + displayOf(view));
        const close = el("button", "", "×");
        close.id = "close-window";
        close.title = "Close this window";
        close.addEventListener("click", () => send({ type: "closeWindow", screen: view.id }));
        bar.append(close);
        // The window's content under its bar: a sheet covers the content, not the bar.
        const inside = el("div", "window-content");
        inside.style.cssText = "display:flex;flex-direction:column;flex:1;min-height:0;position:relative";
        inside.append(content);
        box.append(bar, inside);
        return box;
      }
      return content;
    }

    function card(view) {
      const box = el("div", "card");
      box.append(el("h1", "title", view.title));
      if (view.body) box.append(el("p", "body", view.body));
      let input = null;
      if (view.field !== null && view.field !== undefined) {
        const label = el("label", "", view.field);
        input = el("input", "");
        input.id = "field";
        // A draft (typed, not sent) saved with flowd wins over the state's text: it is newer.
        input.value = view.draft ?? (view.text || "");
        input.addEventListener("keydown", (event) => { if (event.key === "Enter") sendText(view, input); });
        // Every change is saved with flowd as the screen's draft: a new tab, or this one reloaded, gets it back.
        input.addEventListener("input", () => send({ type: "draft", screen: view.id, text: input.value }));
        label.htmlFor = "field";
        box.append(label, input);
      }
      const actions = el("div", "actions");
      view.buttons.forEach((title, index) => {
        const button = el("button", "action", title);
        button.dataset.index = index;
        button.addEventListener("click", () => {
          if (input) sendText(view, input);
          send({ type: "press", screen: view.id, index });
        });
        actions.append(button);
      });
      box.append(actions);
      const wrap = el("div", "screen");
      wrap.style.cssText = "display:flex;flex-direction:column;flex:1;min-height:0;background:#fff";
      wrap.append(box);
      return wrap;
    }

    // The text field's value goes before the press that uses it, and only when it changed.
    function sendText(view, input) {
      if (input.value !== (view.text || "")) {
        send({ type: "text", screen: view.id, text: input.value });
        view.text = input.value;
      }
    }

    function stacked(view, step, content) {
      const bar = el("div", "navbar");
      if (view.placement.index > 0) {
        const back = el("button", "", "‹ Back");
        back.id = "back";
        back.addEventListener("click", () => send({ type: "back", screen: view.id }));
        bar.append(back);
        swipe(bar, content, "x", (phase) => send({ type: "back", screen: view.id, phase }));
      }
      const crumbs = [...screens.values()]
        .filter((other) => { const last = lastStep(other); return last.step === "stack" && last.id === step.id && other.placement.index <= view.placement.index; })
        .sort((a, b) => a.placement.index - b.placement.index)
        .map((other) => other.title);
      // Screens below this one that another tab hosts are not known here: "…" stands for them.
      if (crumbs.length < view.placement.index + 1) crumbs.unshift("…");
      const crumb = el("span", "", crumbs.join(" › "));
      crumb.id = "breadcrumb";
      bar.append(crumb);
      content.prepend(bar);
      return content;
    }

    function tabbed(view, step, content) {
      const box = el("div", "tabbed");
      box.style.cssText = "display:flex;flex-direction:column;flex:1;min-height:0";
      const bar = el("div", "tabbar");
      for (let index = 0; index < step.tabCount; index++) {
        const inTab = [...screens.values()].filter((other) => other.placement.path.some((s) => s.step === "tab" && s.id === step.id && s.tab === index));
        inTab.sort((a, b) => a.placement.index - b.placement.index);
        const tab = el("button", "tab" + (index === step.tab ? " selected" : ""), inTab.length ? inTab[0].title : "Tab " + (index + 1));
        tab.dataset.index = index;
        tab.addEventListener("click", () => send({ type: "selectTab", screen: view.id, index }));
        bar.append(tab);
      }
      box.append(content, bar);
      return box;
    }

    function sheet(view, content) {
      const backdrop = el("div", "backdrop");
      const under = el("div", "under", "presented modally");
      const box = el("div", "sheet");
      const grabber = el("div", "grabber");
      const close = el("button", "", "×");
      close.id = "close";
      close.title = "Close";
      close.addEventListener("click", () => send({ type: "closeModal", screen: view.id }));
      swipe(grabber, box, "y", (phase) => send({ type: "closeModal", screen: view.id, phase }));
      box.append(grabber, close, content);
      backdrop.append(under, box);
      return backdrop;
    }

    // An interactive gesture: drag `handle` to move `target`; begin on the first move, commit
    // past a third of the way, cancel (and spring back) otherwise.
    function swipe(handle, target, axis, report) {
      handle.addEventListener("pointerdown", (down) => {
        if (down.target.tagName === "BUTTON") return;
        const start = axis === "x" ? down.clientX : down.clientY;
        const size = axis === "x" ? target.clientWidth || 390 : target.clientHeight || 600;
        let began = false, distance = 0;
        handle.setPointerCapture(down.pointerId);
        const move = (event) => {
          distance = Math.max(0, (axis === "x" ? event.clientX : event.clientY) - start);
          if (!began && distance > 4) { began = true; report("begin"); }
          target.style.transform = axis === "x" ? `translateX(${distance}px)` : `translateY(${distance}px)`;
        };
        const up = () => {
          handle.removeEventListener("pointermove", move);
          handle.removeEventListener("pointerup", up);
          handle.removeEventListener("pointercancel", up);
          if (!began) return;
          if (distance > size / 3) { report("commit"); }
          else { report("cancel"); target.style.transform = ""; }
        };
        handle.addEventListener("pointermove", move);
        handle.addEventListener("pointerup", up);
        handle.addEventListener("pointercancel", up);
      });
    }

    function offerToOpen(link) {
      const bar = document.getElementById("notice");
      bar.replaceChildren(document.createTextNode("This address is the place " + link + ". "));
      const open = el("button", "", "Open it");
      open.id = "open-place";
      open.onclick = () => { send({ type: "open", link: link }); bar.textContent = ""; };
      bar.append(open);
    }

    function el(tag, className, text) {
      const node = document.createElement(tag);
      if (className) node.className = className;
      if (text !== undefined) node.textContent = text;
      return node;
    }

    draw("none");
    connect();
    """#
}
