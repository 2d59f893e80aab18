import ArgumentParser
import CBenchRelay
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench _spawned`: a screen process flowd spawns (app `bench-spawn`): Hello
/// with `FLOWD_TOKEN` on `FLOWD_SOCKET_FD`, then acknowledges every command until
/// flowd closes the connection. Started for a warm pool (`FLOWD_POOLED=1`) it waits for its
/// Place as long as it takes, and a pool that stops before giving it a screen is a normal end.
struct SpawnedChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_spawned", abstract: "A spawned screen that acknowledges everything (internal).", shouldDisplay: false)

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let fdText = environment["FLOWD_SOCKET_FD"], let fd = Int32(fdText), let token = environment["FLOWD_TOKEN"] else {
            throw BenchError("_spawned needs FLOWD_SOCKET_FD and FLOWD_TOKEN; it is started by flowd (app bench-spawn), not by hand")
        }
        defer { close(fd) }
        let pooled = environment["FLOWD_POOLED"] == "1"
        do {
            _ = try FlowHost.handshake(fd: fd, kind: nil, token: token, context: "spawned screen", timeoutMilliseconds: pooled ? -1 : 30_000)
        } catch let error as BenchError where pooled && "\(error)".contains("before placing a screen") {
            return  // the pool stopped (flowd exits) before this process was needed
        }
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        guard cbr_host_serve(fd, &error) == 0 else { throw BenchError(context: "spawned screen", cError: error) }
    }
}
