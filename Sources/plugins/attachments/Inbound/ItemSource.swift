/// Where an inbound attachment's bytes come from.
enum ItemSource: Sendable, Equatable {
    /// A link from a messenger, fetched over http(s).
    case url(String)
    /// A file on this machine, named at the terminal.
    case path(String)
}
