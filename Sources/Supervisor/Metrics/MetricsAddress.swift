/// Where the metrics endpoint listens: a loopback host and a port. Metrics tell how busy the
/// machine's agents are and which messengers it serves, so they are never offered beyond it.
package struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    package enum Family: Sendable, Equatable { case ipv4, ipv6 }

    /// The numeric address bound: `127.x.y.z` or `::1`.
    package let host: String
    package let port: Int
    package let family: Family

    /// What is wrong with a text, without the text itself (config errors never echo values:
    /// a token pasted in the wrong place must not reach a log).
    package struct ParseError: Error, CustomStringConvertible { package let description: String }

    package init(host: String, port: Int, family: Family) {
        self.host = host
        self.port = port
        self.family = family
    }

    /// `HOST:PORT` with HOST `127.x.y.z`, `localhost`, or `[::1]`; PORT 1 to 65535.
    package init(parsing text: String) throws(ParseError) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ParseError(description: "must be HOST:PORT, e.g. 127.0.0.1:9464 or [::1]:9464")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw ParseError(description: "must be HOST:PORT, e.g. 127.0.0.1:9464")
            }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let port = Int(portPart), (1...65535).contains(port) else {
            throw ParseError(description: "the port must be a number from 1 to 65535")
        }
        switch hostPart {
        case "localhost": self.init(host: "127.0.0.1", port: port, family: .ipv4)
        case "::1": self.init(host: "::1", port: port, family: .ipv6)
        default:
            let octets = hostPart.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
            guard octets.count == 4, !octets.contains(nil) else {
                throw ParseError(
                    description: "the host must be a loopback address: 127.0.0.1, localhost or [::1]")
            }
            guard octets[0] == 127 else {
                throw ParseError(
                    description:
                        "only a loopback address is allowed (127.0.0.1, localhost or [::1]): metrics are not offered beyond this machine; "
                        + "put a reverse proxy with authentication in front to expose them")
            }
            self.init(host: String(hostPart), port: port, family: .ipv4)
        }
    }

    package var description: String { family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
