import CLibUV

/// The common base of every handle wrapper (`uv_handle_t`).
///
/// Memory rules (libuv's): the `uv_xxx_t` lives on the heap; once libuv knows the handle, `handle->data` holds a
/// retained reference to the wrapper, so the wrapper stays alive until `close()` completes even if nobody else
/// holds it. The reference is released, callbacks are dropped (breaking cycles) and the memory is freed only in
/// the `uv_close` callback. A handle that is never closed is a leak that `UVLoop.openHandleCount` shows.
public class UVHandle {
    private enum State { case unregistered, open, closing, closed }

    /// The loop this handle belongs to.
    public let loop: UVLoop
    /// The `uv_xxx_t`; valid until the close callback ran.
    let rawHandle: UnsafeMutableRawPointer
    private var state = State.unregistered
    private var onClosed: (() -> Void)?

    /// Allocates the memory for a handle of `type`; the subclass then initializes it and calls `didRegister()`.
    init(loop: UVLoop, type: uv_handle_type) {
        loop.assertOnLoop()
        self.loop = loop
        rawHandle = .allocate(byteCount: uv_handle_size(type), alignment: 16)
        rawHandle.initializeMemory(as: UInt8.self, repeating: 0, count: uv_handle_size(type))
    }

    deinit {
        // Only reachable when libuv never learnt about the handle (its init failed): otherwise `data` retains us
        // until the close callback, which frees the memory.
        if state == .unregistered { rawHandle.deallocate() }
    }

    /// The handle as `uv_handle_t*`.
    @inline(__always)
    var handle: UnsafeMutablePointer<uv_handle_t> { rawHandle.assumingMemoryBound(to: uv_handle_t.self) }

    /// Call right after `uv_xxx_init` succeeded: libuv now owns the memory, we keep ourselves alive until closed.
    func didRegister() {
        state = .open
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    /// Whether `close()` was called (the handle may still be waiting for its close callback).
    public var isClosing: Bool { state == .closing || state == .closed }

    /// Whether the close callback ran: the handle's memory is gone.
    public var isClosed: Bool { state == .closed }

    /// Closes the handle (`uv_close`); `done` runs from the close callback, on a later loop iteration.
    /// Idempotent: later calls only add their `done` (run at once if already closed).
    public func close(_ done: (() -> Void)? = nil) {
        loop.assertOnLoop()
        switch state {
        case .open:
            state = .closing
            onClosed = done
            willClose()
            uv_close(handle) { handle in
                let owner = Unmanaged<UVHandle>.fromOpaque(handle!.pointee.data).takeRetainedValue()
                owner.closeCallback()
            }
        case .closing:
            if let done {
                let previous = onClosed
                onClosed = { previous?(); done() }
            }
        case .closed, .unregistered:
            done?()
        }
    }

    private func closeCallback() {
        state = .closed
        rawHandle.deallocate()
        didClose()
        let done = onClosed
        onClosed = nil
        done?()
    }

    /// Subclass hook, called by `close()` before `uv_close` while the handle is still valid.
    func willClose() {}

    /// Subclass hook, called from the close callback after the memory was freed: drop callbacks here.
    func didClose() {}

    /// Lets the loop exit even while this handle is active (`uv_unref`).
    public func unref() {
        loop.assertOnLoop()
        if !isClosing { uv_unref(handle) }
    }

    /// Makes this handle keep the loop alive while active again (`uv_ref`).
    public func ref() {
        loop.assertOnLoop()
        if !isClosing { uv_ref(handle) }
    }

    /// Whether the handle is active (`uv_is_active`): started timer, reading pipe, listening server...
    public var isActive: Bool { !isClosing && uv_is_active(handle) != 0 }
}

/// The wrapper stored in `handle->data`, without touching its reference count.
@inline(__always)
func owner<T: UVHandle>(of handle: UnsafeMutableRawPointer, as _: T.Type) -> T {
    let data = handle.assumingMemoryBound(to: uv_handle_t.self).pointee.data!
    return Unmanaged<T>.fromOpaque(data).takeUnretainedValue()
}
