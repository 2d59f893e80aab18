import CBenchRelay
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` for one run of the D-Bus row: a session-like bus listening on a
/// Unix socket in its own scratch directory, with its own configuration (no system bus, no
/// autolaunch, no service activation). Stopped and removed when released.
final class DBusBroker {
    /// The dbus-daemon process.
    let process: ChildProcess
    /// Its address, as it printed it (`unix:path=...,guid=...`).
    let address: String
    private let directory: String

    /// The broker's process id, for /proc readings.
    var pid: Int32 { process.pid }

    private init(process: ChildProcess, address: String, directory: String) {
        self.process = process
        self.address = address
        self.directory = directory
    }

    deinit {
        process.stop()
        OS.removeDirectory(directory)
    }

    /// The dbus-daemon executable: the first on PATH; nil if there is none.
    static var executable: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/dbus-daemon" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Why the D-Bus row cannot run on this machine (no dbus-daemon, no libsystemd), nil if it can.
    static func unavailableReason() -> String? {
        guard executable != nil else {
            return "dbus-daemon not found on PATH (Debian package dbus; scripts/bench and scripts/test install it)"
        }
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        guard cbr_dbus_load(&error) == 0 else {
            return error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        return nil
    }

    /// Starts dbus-daemon on a fresh socket and waits until it prints its address (it listens then).
    static func start() throws -> DBusBroker {
        guard let executable else { throw BenchError(unavailableReason() ?? "dbus-daemon not found") }
        let directory = try OS.makeScratchDirectory()
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(directory)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """
        let configurationPath = directory + "/bus.conf", logPath = directory + "/dbus-daemon.log"
        do {
            try configuration.write(toFile: configurationPath, atomically: false, encoding: .utf8)
        } catch {
            OS.removeDirectory(directory)
            throw BenchError("cannot write \(configurationPath): \(error)")
        }
        let process: ChildProcess
        do {
            process = try Pinning.startingServer { try ChildProcess(
                executable: executable,
                arguments: ["--config-file=\(configurationPath)", "--nofork", "--nopidfile", "--print-address=1"],
                errorPath: logPath) }
        } catch {
            OS.removeDirectory(directory)
            throw error
        }
        guard let address = process.readLine(), address.hasPrefix("unix:") else {
            let status = process.waitForExit()
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            OS.removeDirectory(directory)
            throw BenchError("\(executable) exited with status \(status) before printing its address: \(log)")
        }
        return DBusBroker(process: process, address: address, directory: directory)
    }
}
