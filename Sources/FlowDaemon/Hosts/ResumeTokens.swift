/// The resume tokens of one daemon run (docs/protocol.md §19): each attached screen host gets one in
/// its `Welcome`; a host whose connection dropped presents it to take its screens back. A token is
/// good once, only in the run that issued it (its prefix names the run), and only while its host's
/// screens are held. The refusals say which rule was broken, so a host author can tell a bug from a
/// late reconnect.
struct ResumeTokens {
    /// Random per daemon run: a token from another run (a restarted daemon) is refused as such.
    let run: String
    /// The host (connection id) each live token was issued to.
    private var hostOfToken: [String: UInt64] = [:]
    private var tokenOfHost: [UInt64: String] = [:]
    /// Why recent tokens are no longer good, for the refusal message; oldest dropped first.
    private var spent: [String: Refusal] = [:]
    private var spentOrder: [String] = []
    private static let spentMemory = 4_096

    /// Why a token was refused.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case otherRun
        case unknown
        case used
        case expired
        case hostLeft
        case stillConnected

        var description: String {
            switch self {
            case .otherRun: "the token was issued by another flowd run (the daemon restarted); connect without a token"
            case .unknown: "the token is not one this flowd issued"
            case .used: "the token was already used; each Welcome gives a new one"
            case .expired: "its grace period ended; its screens wait for the next host of their kinds (unless their kind is lost with its host): connect without a token to take them"
            case .hostLeft: "its host left for good (said goodbye, broke the protocol, or the daemon is stopping); its screens wait for the next host of their kinds (unless their kind is lost with its host): connect without a token to take them"
            case .stillConnected: "the connection it belongs to is still open; close it first"
            }
        }
    }

    init(run: String = ResumeTokens.randomHex()) { self.run = run }

    /// A new token for `host`.
    mutating func issue(for host: UInt64) -> String {
        let token = "\(run).\(Self.randomHex())\(Self.randomHex())"
        hostOfToken[token] = host
        tokenOfHost[host] = token
        return token
    }

    /// The host whose screens `token` resumes, consuming the token; or why not. `isHeld` says whether
    /// a host's screens still wait for it.
    mutating func redeem(_ token: String, isHeld: (UInt64) -> Bool) -> Result<UInt64, Refusal> {
        guard token.hasPrefix(run + ".") else { return .failure(spent[token] ?? .otherRun) }
        guard let host = hostOfToken[token] else { return .failure(spent[token] ?? .unknown) }
        guard isHeld(host) else { return .failure(.stillConnected) }
        retire(host, because: .used)
        return .success(host)
    }

    /// Whether `host` holds a live token.
    func hasToken(_ host: UInt64) -> Bool { tokenOfHost[host] != nil }

    /// The host a live token was issued to.
    func host(of token: String) -> UInt64? { hostOfToken[token] }

    /// `host`'s token is no longer good (`because` is what a later attempt is told).
    mutating func retire(_ host: UInt64, because reason: Refusal) {
        guard let token = tokenOfHost.removeValue(forKey: host) else { return }
        hostOfToken[token] = nil
        spent[token] = reason
        spentOrder.append(token)
        if spentOrder.count > Self.spentMemory { spent[spentOrder.removeFirst()] = nil }
    }

    /// 64 random bits as 16 hex digits (also the spawned screens' one-time tokens).
    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        let value: UInt64 = generator.next()
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
