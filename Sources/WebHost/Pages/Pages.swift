/// The two pages flowd-web serves, each one self-contained HTML document (style and script
/// inline, nothing fetched from elsewhere). The pages take the token from the URL flowd-web
/// printed, keep it in the origin's storage, take it out of the address bar, and present it on
/// their WebSocket (docs/web.md, "Security").
enum Pages {
    /// The screen host's page: the visible screen with its navigation chrome.
    static let screens = document(title: "flowd", style: style + screensStyle, body: screensBody, script: tokenScript + screensScript)
    /// The live inspector: the flow tree and navigation model, the events, the actions.
    static let inspector = document(title: "flowd inspector", style: style + inspectorStyle, body: inspectorBody, script: tokenScript + inspectorScript)

    /// The token, for both pages: taken out of the address bar at once, so an address a person
    /// copies or bookmarks never holds it, and kept in this origin's storage (another port is another
    /// origin) once the page's WebSocket accepted it (`keepToken`), so a wrong one in a link cannot
    /// replace the right one. A later page of the origin finds it there.
    static let tokenScript = #"""
    "use strict";
    const token = (() => {
      const url = new URL(location.href);
      const given = url.searchParams.get("token");
      if (!given) return localStorage.getItem("flowd-web-token") || "";
      url.searchParams.delete("token");
      history.replaceState(null, "", url.pathname + url.search + url.hash);
      return given;
    })();
    function keepToken() { localStorage.setItem("flowd-web-token", token); }

    """#

    private static func document(title: String, style: String, body: String, script: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <style>\(style)</style>
        </head><body>
        \(body)
        <script>\(script)</script>
        </body></html>
        """
    }

    /// What both pages share: colours, the header, the status line.
    static let style = #"""
    :root { --ink:#1d2330; --muted:#6b7385; --line:#d9dde6; --paper:#f6f7fa; --accent:#3558d6; --bad:#c0392b; --ok:#1e8e5a; }
    * { box-sizing: border-box; }
    body { margin:0; font: 15px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--ink); background:var(--paper); }
    header.top { display:flex; gap:12px; align-items:center; padding:8px 16px; background:#fff; border-bottom:1px solid var(--line); }
    header.top b { font-size:16px; }
    header.top .meta { color:var(--muted); font-size:13px; }
    header.top a { margin-left:auto; color:var(--accent); font-size:13px; }
    #status { font-size:13px; color:var(--muted); }
    #status.bad { color:var(--bad); }
    #status.ok { color:var(--ok); }
    button { font:inherit; cursor:pointer; }
    """#
}
