import FlowControl
import FlowWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#endif

/// The write end of the self-pipe; only the signal handler and `install` touch it.
nonisolated(unsafe) private var signalPipeWriter: Int32 = -1

/// SIGINT and SIGTERM turned into a readable descriptor (the self-pipe
/// trick), so that long-running commands stop between frames, never in the
/// middle of writing one.
enum SignalPipe {
    /// The read end; readable once a stop signal arrived.
    nonisolated(unsafe) private(set) static var reader: Int32 = -1

    /// Installs the handlers (once).
    static func install() {
        guard reader < 0 else { return }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        reader = fds[0]
        signalPipeWriter = fds[1]
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        for signum in [SIGINT, SIGTERM] {
            signal(signum) { _ in
                var byte: UInt8 = 1
                _ = write(signalPipeWriter, &byte, 1)
            }
        }
        // A parent may start us with these signals blocked (the mask is inherited across exec).
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}

/// Why a frame loop ended.
enum StreamEnd {
    /// SIGINT or SIGTERM.
    case signal
    /// The handler asked to stop (e.g. --count reached).
    case done
    /// The daemon said Shutdown, or closed the connection after it.
    case shutdown
}

/// Hands every frame the daemon sends to `handle` until it returns false, a
/// stop signal arrives or the daemon shuts down. Client errors exit (1).
func streamFrames(_ client: FlowClient, handle: (Flowd_V1_Envelope) -> Bool) -> StreamEnd {
    SignalPipe.install()
    var sawShutdown = false
    while true {
        // Frames already buffered or readable now, without blocking.
        while true {
            let frame: Flowd_V1_Envelope?
            do {
                frame = try client.receiveIfAvailable()
            } catch {
                if case .closed = error, sawShutdown { return .shutdown }
                fail(error)
            }
            guard let frame else { break }
            if case .shutdown = frame.body { sawShutdown = true }
            if !handle(frame) { return .done }
            if sawShutdown { return .shutdown }
        }
        var descriptors = [
            pollfd(fd: client.socket.descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: SignalPipe.reader, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&descriptors, 2, -1)
        if ready < 0 && errno != EINTR { fail("poll failed: \(String(cString: strerror(errno)))") }
        if descriptors[1].revents != 0 { return .signal }
    }
}
