import UVKit

/// What the daemon needs from a connected byte stream: libuv's `UVPipe` when it serves a socket, a
/// fake in the embedded daemon (FlowDaemonTesting). Same contract as `UVPipe`: callbacks run on the
/// loop, `close`'s completion runs once, later.
package protocol ConnectionPipe: AnyObject {
    /// Starts delivering data; `onEnd` runs once at end of stream or on an error.
    func startReading(onData: @escaping (UnsafeRawBufferPointer) -> Void, onEnd: @escaping (UVError?) -> Void) throws(UVError)
    /// Stops delivering data until `resumeReading`.
    func stopReading()
    /// Delivers data again after `stopReading`.
    func resumeReading()
    /// Queues bytes for the peer.
    func write(_ bytes: [UInt8])
    /// Bytes written but not yet taken by the peer.
    var writeQueueSize: Int { get }
    /// Half-closes after the queued writes went out.
    func shutdown(_ completion: ((UVError?) -> Void)?)
    /// Closes; `done` runs once the handle is gone.
    func close(_ done: (() -> Void)?)
}

extension UVPipe: ConnectionPipe {}
