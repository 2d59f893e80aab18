import FlowDaemon
import Foundation
import Logging
import Testing

/// Lines for the journal: an sd-daemon priority on every line, no timestamp, metadata after the message.
@Suite struct JournalLogHandlerTests {
    @Test func eachLevelHasItsPriority() {
        let log = LogLines()
        let logger = log.logger
        logger.trace("t")
        logger.debug("d")
        logger.info("i")
        logger.notice("n")
        logger.warning("w")
        logger.error("e")
        logger.critical("c")
        #expect(log.lines == ["<7>t", "<7>d", "<6>i", "<5>n", "<4>w", "<3>e", "<2>c"])
    }

    @Test func metadataFollowsTheMessageSortedAndEveryLineIsPrefixed() {
        let log = LogLines()
        var logger = log.logger
        logger[metadataKey: "app"] = "launcher"
        logger.warning("two\nlines", metadata: ["pid": "42", "connection": "#3"])
        #expect(log.lines == ["<4>two", "<4>lines app=launcher connection=#3 pid=42"])
    }

    @Test func onlyAJournalStreamNamingStandardErrorCounts() {
        var status = stat()
        #expect(fstat(2, &status) == 0)
        #expect(JournalLogHandler.isJournalStandardError(environmentValue: "\(status.st_dev):\(status.st_ino)"))
        #expect(!JournalLogHandler.isJournalStandardError(environmentValue: "\(status.st_dev):\(status.st_ino + 1)"))
        #expect(!JournalLogHandler.isJournalStandardError(environmentValue: "garbage"))
        #expect(!JournalLogHandler.isJournalStandardError(environmentValue: nil))
    }
}
