/// A decoding error said in one line that names the field (`field "buttons.1": expected String,
/// found a number`), for the `BAD_PAYLOAD` a host sends when a State does not decode.
struct DecodingProblem: CustomStringConvertible {
    let description: String

    init(_ error: any Error) {
        guard let error = error as? DecodingError else {
            description = "\(error)"
            return
        }
        func field(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the top level" : "field \"" + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "\""
        }
        switch error {
        case .typeMismatch(let type, let context):
            description = "\(field(context.codingPath)): expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            description = "\(field(context.codingPath)): expected \(type), found null or nothing"
        case .keyNotFound(let key, let context):
            description = "\(field(context.codingPath + [key])) is missing"
        case .dataCorrupted(let context):
            description = "\(field(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            description = "\(error)"
        }
    }
}
