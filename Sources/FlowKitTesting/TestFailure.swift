import Foundation
import Testing
import XCTest

/// Reports a failed expectation at the caller's line: through Swift Testing when a test is running
/// there, else through XCTest.
func reportFailure(_ message: String, fileID: String, filePath: StaticString, line: UInt, column: UInt) {
    if Test.current != nil {
        let location = SourceLocation(fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column))
        Issue.record(Comment(rawValue: message), sourceLocation: location)
    } else {
        XCTFail(message, file: filePath, line: line)
    }
}
