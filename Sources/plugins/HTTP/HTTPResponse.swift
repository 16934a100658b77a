/// A finished HTTP exchange: status, headers (names lowercased) and body.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    subscript(header name: String) -> String? { headers[name.lowercased()] }
}
