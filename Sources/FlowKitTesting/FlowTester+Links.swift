import FlowKit

extension FlowTester {
    /// Opens a link as the daemon would (parsed, then `runtime.open`), and settles.
    @discardableResult
    public func open(_ link: String) throws(LinkError) -> OpenedLink {
        defer { settle() }
        settle()
        return try runtime.open(Link(parsing: link))
    }

    /// Expects `link` to open, start flows of exactly these types (in start order, the flows they
    /// start themselves included) and leave a screen of `visible`'s kind visible. Returns that screen.
    @discardableResult
    public func expectOpen<M: ScreenModule>(
        _ link: String, starts flowTypes: [String], visible: M.Type,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ScreenID? {
        let opened: OpenedLink
        do { opened = try open(link) } catch {
            reportFailure("expected \(link) to open, but it failed: \(error)", fileID: fileID, filePath: filePath, line: line, column: column)
            return nil
        }
        let started = opened.started.map { runtime.typeName(of: $0) ?? "ended \($0)" }
        if started != flowTypes {
            reportFailure("expected \(link) to start \(flowTypes), but it started \(started)", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        guard let screen = runtime.visibleScreen, runtime.kind(of: screen) == M.kind else {
            reportFailure("expected a \(M.kind) screen visible after \(link), but \(runtime.visibleScreen.flatMap { runtime.kind(of: $0) } ?? "nothing") is",
                          fileID: fileID, filePath: filePath, line: line, column: column)
            return nil
        }
        return screen
    }

    /// Expects `link` to be refused with `code`, changing nothing: the same tree, no screen command.
    public func expectLinkRefused(
        _ link: String, _ code: LinkError.Code,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        settle()
        let tree = runtime.debugTree()
        let events = transport.events.count
        do {
            let opened = try open(link)
            reportFailure("expected \(link) to be refused (\(code)), but it opened: \(opened)", fileID: fileID, filePath: filePath, line: line, column: column)
        } catch {
            if error.code != code {
                reportFailure("expected \(link) to be refused with \(code), but got \(error)", fileID: fileID, filePath: filePath, line: line, column: column)
            }
        }
        if runtime.debugTree() != tree || transport.events.count != events {
            reportFailure("refusing \(link) changed the tree or sent screen commands", fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }
}
