import CLibUV

/// The one funnel for libuv return codes: returns `rc` when it is not negative, throws `UVError` otherwise.
///
/// `EINVAL` can only mean we misused a handle we made (or passed an invalid argument such as a signal number),
/// so it stops the process with a precondition instead of being thrown.
@discardableResult
@inline(__always)
func uvCheck(_ rc: Int32, _ function: @autoclosure () -> String) throws(UVError) -> Int32 {
    if rc >= 0 { return rc }
    let error = UVError(rc, function: function())
    precondition(rc != UV_EINVAL.rawValue, "UVKit bug: \(error)")
    throw error
}

/// For libuv calls that cannot fail on a handle we initialized ourselves (`uv_timer_start`, `uv_check_stop`...):
/// any error is a bug in UVKit.
@inline(__always)
func uvMust(_ rc: Int32, _ function: @autoclosure () -> String) {
    precondition(rc >= 0, "UVKit bug: \(UVError(rc, function: function()))")
}
