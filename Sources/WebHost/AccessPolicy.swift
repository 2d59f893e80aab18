import Foundation

/// Who may use flowd-web (docs/web.md, "Security"): every WebSocket and recording presents the
/// token printed at start (as Jupyter does), the `Host` header names this server (no DNS
/// rebinding), and a WebSocket's `Origin`, when a browser sends one, is this server's own page.
/// The pages themselves hold nothing secret: any request naming this server gets them, and they
/// keep the token in the origin's storage, out of the address bar.
public struct AccessPolicy: Sendable {
    /// The secret in every URL.
    public let token: String
    /// The host names the server answers to: the one it listens on, and the loopback names.
    let hosts: Set<String>
    /// The port it listens on (set once bound).
    let port: Int
    /// Whether its pages are served over HTTPS (their origin is `https://`).
    let secure: Bool

    /// A policy for a server listening on `host`:`port`, over HTTPS when `secure`.
    public init(token: String, host: String, port: Int, secure: Bool = false) {
        self.token = token
        self.port = port
        self.secure = secure
        // An IPv6 address is written in brackets in a Host header.
        let listening = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        var names: Set<String> = [listening.lowercased(), "127.0.0.1", "localhost", "[::1]"]
        // On every address: the names other machines reach it by (this host's name and addresses).
        if Self.isWildcard(host) { names.formUnion(Self.machineNames) }
        hosts = names
    }

    /// Whether `host` is reachable from this machine only: `localhost`, or an address of 127.0.0.0/8
    /// or `::1` (parsed: a name that merely starts with "127." is not one).
    public static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        }
        return false
    }

    /// This machine's host name (what the printed URLs use on every address, and what the check admits).
    public static var machineHostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        return gethostname(&buffer, buffer.count) == 0 ? text(buffer).lowercased() : "localhost"
    }

    /// Whether `host` is every address of the machine (0.0.0.0, ::).
    public static func isWildcard(_ host: String) -> Bool { ["0.0.0.0", "::", "[::]"].contains(host) }

    /// This machine's host name and the addresses of its interfaces (IPv6 in brackets), lowercased;
    /// read once.
    static let machineNames: Set<String> = {
        var names: Set<String> = [machineHostName]
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return names }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let name = Self.text(text).lowercased()
            // A link-local IPv6 address carries its interface (fe80::1%eth0): browsers do not send that.
            guard !name.contains("%") else { continue }
            names.insert(family == AF_INET6 ? "[\(name)]" : name)
        }
        return names
    }()

    /// 32 random bytes as hex, from the system's generator.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Why a request is refused, in words for the page or the log; nil if it may go on.
    public func refusal(token presented: String?, host: String?, origin: String?) -> String? {
        guard let presented, !presented.isEmpty else {
            return "no token: open the URL flowd-web printed when it started (it ends with ?token=...)"
        }
        guard Self.equalInConstantTime(presented, token) else {
            return "wrong token: open the URL flowd-web printed when it started"
        }
        guard let host, allows(authority: host) else {
            return "the Host header \"\(host ?? "")\" does not name this server; use the URL flowd-web printed"
        }
        if let origin, !allows(origin: origin) {
            return "the Origin \"\(origin)\" is not this server's page; only flowd-web's own pages may open its WebSockets"
        }
        return nil
    }

    /// Why a page request is refused (its `Host` does not name this server); nil if it may go on.
    public func pageRefusal(host: String?) -> String? {
        guard let host, allows(authority: host) else {
            return "the Host header \"\(host ?? "")\" does not name this server; use the URL flowd-web printed"
        }
        return nil
    }

    /// `host:port` names this server (`host` alone on the scheme's default port, as browsers write it).
    func allows(authority: String) -> Bool {
        let defaultPort = secure ? 443 : 80
        // An IPv6 address without a port ends with its bracket.
        guard let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") else {
            return port == defaultPort && hosts.contains(authority.lowercased())
        }
        guard Int(authority[authority.index(after: colon)...]) == port else { return false }
        return hosts.contains(authority[..<colon].lowercased())
    }

    /// `http://host:port` (`https://` over TLS) is a page of this server.
    func allows(origin: String) -> Bool {
        let prefix = secure ? "https://" : "http://"
        guard origin.lowercased().hasPrefix(prefix) else { return false }
        return allows(authority: String(origin.dropFirst(prefix.count)))
    }

    /// A C string in a buffer, up to its terminating zero.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(left, right) { difference |= x ^ y }
        return difference == 0
    }
}
