import FlowKit
import FlowWire
import Logging

/// Something a part has to tell people: a log line and, for watchers, an event. Parts return
/// notices instead of holding the logger and the event stream, so they stay values that know only
/// their own state; the cores write each one with `tell(_:)`. For what happens rarely
/// (restarts, hangs, spawns, refusals, the journal's fate), where building the text at once costs
/// nothing that matters; the hot path's events (outputs, commands, acks) are emitted lazily instead.
struct Notice {
    /// The event watchers see.
    struct Event {
        var kind: Flowd_V1_EventKind
        var screen: ScreenID?
        var flow: FlowID?
        var connection: UInt64 = 0
        var name = ""
        var serial: UInt64 = 0
        var text: String
    }

    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata = [:]
    var event: Event?

    init(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata = [:], event: Event? = nil) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.event = event
    }
}

extension Notice {
    /// Writes the notice: the log line, then the event.
    func write(to logger: Logger, events: EventBus) {
        logger.log(level: level, "\(message)", metadata: metadata.isEmpty ? nil : metadata)
        guard let event else { return }
        events.emit(event.kind, screen: event.screen, flow: event.flow, connection: event.connection, name: event.name,
                    serial: event.serial, text: event.text)
    }
}

extension DaemonCore {
    /// Writes a part's notice: the log line, then the event.
    func tell(_ notice: Notice) { app.tell(notice) }

    /// Writes each of `notices`.
    func tell(_ notices: [Notice]) { for notice in notices { tell(notice) } }
}
