import Foundation

/// Progress and the final table of a public subcommand.
enum Report {
    /// Says on stderr which benchmark starts.
    static func progress(_ message: String) {
        FileHandle.standardError.write(Data("flowbench: \(message)\n".utf8))
    }

    /// Prints the machine line and the table on stdout.
    static func emit(_ rows: [TableRow], quick: Bool) {
        print("flowbench\(quick ? " --quick" : "")\(Pinning.isOn ? " --pin" : "") on \(OS.machineDescription)")
        if let pinning = Pinning.description { print(pinning) }
        print("")
        ResultTable(rows: rows).print()
    }

    /// The same on stderr (when stdout carries one line for a script).
    static func emitToStandardError(_ rows: [TableRow], quick: Bool) {
        var text = "flowbench\(quick ? " --quick" : "")\(Pinning.isOn ? " --pin" : "") on \(OS.machineDescription)\n"
        if let pinning = Pinning.description { text += pinning + "\n" }
        text += "\n" + ResultTable(rows: rows).rendered + "\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}
