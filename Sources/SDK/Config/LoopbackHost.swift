/// Whether a host name or address is this machine's loopback: `localhost`, `::1`, or an IPv4
/// address in 127.0.0.0/8 written as one (four numbers from 0 to 255). A name that merely starts
/// with `127.` (`127.lan.example.com`) is a name, resolved wherever DNS says, so it is not.
public enum LoopbackHost {
    public static func contains(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber } && Int(part).map { $0 <= 255 } == true
        }
    }
}
