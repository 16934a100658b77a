/// A finished HTTP exchange: status, headers of the last response (names lowercased) and body.
package struct HTTPResponse: Sendable, Equatable {
    package var status: Int
    package var headers: [String: String]
    package var body: [UInt8]

    package init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package subscript(header name: String) -> String? { headers[name.lowercased()] }
}
