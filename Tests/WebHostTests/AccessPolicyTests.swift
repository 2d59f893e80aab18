import Testing

@testable import WebHost

@Suite("AccessPolicy: the token, the Host header and the Origin")
struct AccessPolicyTests {
    let policy = AccessPolicy(token: "secret", host: "127.0.0.1", port: 8471)

    @Test("the right token from this server's own host and page passes")
    func allowed() {
        #expect(policy.refusal(token: "secret", host: "127.0.0.1:8471", origin: nil) == nil)
        #expect(policy.refusal(token: "secret", host: "localhost:8471", origin: "http://localhost:8471") == nil)
        #expect(policy.refusal(token: "secret", host: "127.0.0.1:8471", origin: "http://127.0.0.1:8471") == nil)
    }

    @Test("no token, or a wrong one, is refused and the refusal says where the right URL is")
    func token() {
        #expect(policy.refusal(token: nil, host: "127.0.0.1:8471", origin: nil)?.contains("no token") == true)
        #expect(policy.refusal(token: "", host: "127.0.0.1:8471", origin: nil)?.contains("no token") == true)
        #expect(policy.refusal(token: "secreT", host: "127.0.0.1:8471", origin: nil)?.contains("wrong token") == true)
        #expect(policy.refusal(token: "secret2", host: "127.0.0.1:8471", origin: nil)?.contains("printed") == true)
    }

    @Test("another site's page may not open a WebSocket, even with the token")
    func foreignOrigin() {
        for origin in ["http://evil.example", "http://127.0.0.1:9999", "https://127.0.0.1:8471", "null"] {
            let refusal = policy.refusal(token: "secret", host: "127.0.0.1:8471", origin: origin)
            #expect(refusal?.contains("Origin") == true, "\(origin)")
        }
    }

    @Test("a Host header naming another server is refused (DNS rebinding)")
    func host() {
        #expect(policy.refusal(token: "secret", host: "evil.example:8471", origin: "http://evil.example:8471") != nil)
        #expect(policy.refusal(token: "secret", host: "127.0.0.1:80", origin: nil) != nil)
        #expect(policy.refusal(token: "secret", host: nil, origin: nil) != nil)
    }

    @Test("random tokens are 64 hex digits and differ")
    func randomTokens() {
        let first = AccessPolicy.randomToken()
        #expect(first.count == 64 && first.allSatisfy(\.isHexDigit))
        #expect(first != AccessPolicy.randomToken())
    }

    #if Web
    @Test("a close reason fits the 123 bytes a close frame holds, cut on a character")
    func closeReason() {
        #expect(WebServer.closeReason("short") == "short")
        let long = String(repeating: "é", count: 100)  // 200 bytes
        let cut = WebServer.closeReason(long)
        #expect(cut.utf8.count <= 123 && cut.utf8.count >= 122 && long.hasPrefix(cut))
    }

    @Test("a tab provides every demo kind, or those it names; an unknown kind is refused")
    func kinds() {
        #expect(WebServer.kinds(nil)?.contains("menu") == true)
        #expect(WebServer.kinds("student-name,student-age") == ["student-name", "student-age"])
        #expect(WebServer.kinds("menu,nope") == nil)
    }
    #endif

    @Test("over TLS, pages are https, and on port 443 a Host or Origin without the port is this server")
    func secure() {
        let tls = AccessPolicy(token: "secret", host: "127.0.0.1", port: 8471, secure: true)
        #expect(tls.refusal(token: "secret", host: "127.0.0.1:8471", origin: "https://127.0.0.1:8471") == nil)
        #expect(tls.refusal(token: "secret", host: "127.0.0.1:8471", origin: "http://127.0.0.1:8471") != nil, "not the http page")
        let standard = AccessPolicy(token: "secret", host: "127.0.0.1", port: 443, secure: true)
        #expect(standard.refusal(token: "secret", host: "127.0.0.1", origin: "https://127.0.0.1") == nil)
        #expect(standard.refusal(token: "secret", host: "evil.example", origin: nil) != nil)
        #expect(policy.refusal(token: "secret", host: "127.0.0.1", origin: nil) != nil, "no port, and 8471 is not http's own")
    }

    @Test("an IPv6 address to listen on is matched in brackets, as a Host header writes it")
    func ipv6() {
        let v6 = AccessPolicy(token: "secret", host: "2001:db8::1", port: 8471, secure: true)
        #expect(v6.refusal(token: "secret", host: "[2001:db8::1]:8471", origin: "https://[2001:db8::1]:8471") == nil)
    }

    @Test("on every address, this machine's name is admitted; other names are not")
    func wildcard() {
        let any = AccessPolicy(token: "secret", host: "0.0.0.0", port: 8471, secure: true)
        #expect(any.refusal(token: "secret", host: AccessPolicy.machineHostName + ":8471", origin: nil) == nil)
        #expect(any.refusal(token: "secret", host: "evil.example:8471", origin: nil) != nil)
    }

    @Test("loopback is parsed, not guessed from a prefix")
    func loopback() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"] { #expect(AccessPolicy.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "127.example.com", "192.0.2.1", "::", "2001:db8::1", "myhost"] { #expect(!AccessPolicy.isLoopback(host), "\(host)") }
    }
}
