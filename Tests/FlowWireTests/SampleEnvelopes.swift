import Foundation
import FlowWire

/// One envelope per body type, with non-default fields, for round-trip tests.
enum SampleEnvelopes {
    static var placement: Flowd_V1_Placement {
        .with {
            $0.path = [
                .with { $0.kind = .window; $0.id = 1 },
                .with { $0.kind = .tabBar; $0.id = 2; $0.tabCount = 3 },
                .with { $0.kind = .stack; $0.id = 3; $0.index = 1 },
                .with { $0.kind = .screen; $0.id = 7; $0.index = 2 },
            ]
            $0.visible = true
            $0.topMost = true
        }
    }

    static let payload = Flowd_V1_Payload.json(Data(#"{"didPressButton":{"index":0}}"#.utf8))

    static var bodies: [Flowd_V1_Envelope.OneOf_Body] {
        [
            .hello(.with {
                $0.minVersion = 1; $0.maxVersion = 1; $0.role = .screenHost; $0.token = "t0k3n"
                $0.name = "demo-screens"; $0.provides = ["tutorial", "menu"]; $0.maxFrameSize = 65536; $0.pid = 4242
            }),
            .welcome(.with {
                $0.version = 1; $0.connectionID = 9; $0.server = "flowd 0.1.0"; $0.maxFrameSize = 65536; $0.app = "demo"
            }),
            .error(Flowd_V1_Error(code: .unknownSerial, message: "no serial 9 for screen 7", screenID: 7, serial: 9)),
            .ping(.with { $0.nonce = 77 }),
            .pong(.with { $0.nonce = 77 }),
            .shutdown(.with { $0.reason = .daemonExiting; $0.message = "SIGTERM" }),
            .place(.with {
                $0.screenID = 7; $0.kind = "tutorial"; $0.state = payload; $0.placement = placement; $0.serial = 1
                $0.animated = true; $0.flowID = 3; $0.flowType = "TutorialFlow"
            }),
            .update(.with { $0.screenID = 7; $0.serial = 2; $0.state = payload }),
            .placementChanged(.with { $0.screenID = 7; $0.serial = 3; $0.change = .covered; $0.placement = placement }),
            .dismiss(.with { $0.screenID = 7; $0.serial = 4; $0.animated = true; $0.reason = .flowFinished }),
            .ack(.with { $0.screenID = 7; $0.serial = 4 }),
            .output(.with { $0.screenID = 7; $0.payload = payload }),
            .userNavigation(.with { $0.screenID = 7; $0.back = .with { $0.phase = .begin } }),
            .getTree(Flowd_V1_GetTree()),
            .tree(.with {
                $0.app = "demo"
                $0.rootFlow = .with {
                    $0.id = 1; $0.type = "AppFlow"; $0.children = [.with { $0.id = 3; $0.type = "TutorialFlow"; $0.screenIds = [7] }]
                }
                $0.window = .with {
                    $0.id = 1; $0.kind = .window
                    $0.children = [.with { $0.id = 7; $0.kind = .screen; $0.screen = .with { $0.kind = "tutorial"; $0.visible = true } }]
                }
                $0.connections = [.with { $0.id = 9; $0.role = "screen-host"; $0.name = "demo-screens"; $0.pid = 4242 }]
                $0.stats = .with { $0.flows = 2; $0.screens = 1 }
                $0.lastEventSeq = 12
            }),
            .subscribe(.with { $0.kinds = [.place, .dismiss]; $0.flowID = 3; $0.payloads = true }),
            .unsubscribe(Flowd_V1_Unsubscribe()),
            .event(.with {
                $0.seq = 13; $0.timeUnixNanos = 1_700_000_000_000_000_000; $0.kind = .place; $0.screenID = 7
                $0.name = "tutorial"; $0.placement = placement; $0.payload = payload; $0.text = "placed tutorial #7"
            }),
            .lagged(.with { $0.dropped = 5; $0.nextSeq = 19 }),
            .injectOutput(.with { $0.screenID = 7; $0.payload = payload }),
            .injectNavigation(.with { $0.navigation = .with { $0.screenID = 7; $0.selectTab = .with { $0.index = 2 } } }),
            .terminateFlow(.with { $0.flowID = 3; $0.animated = true }),
            .commandResult(.with { $0.message = "terminated TutorialFlow #3" }),
            .getStats(Flowd_V1_GetStats()),
            .stats(.with { $0.flows = 2; $0.screens = 1; $0.connections = 1; $0.pendingAcks = 0 }),
        ]
    }

    /// Every body wrapped in an envelope with a growing seq.
    static var all: [Flowd_V1_Envelope] {
        bodies.enumerated().map { Flowd_V1_Envelope($1, seq: UInt64($0 + 1), replyTo: UInt64($0)) }
    }

    /// All sample envelopes as one byte stream.
    static func stream(_ envelopes: [Flowd_V1_Envelope] = all) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for envelope in envelopes { try FrameEncoder.append(envelope, to: &bytes) }
        return bytes
    }
}
