/// A browser signed in by a pairing link: the web user it acts as, until when.
struct SignIn: Codable, Sendable, Equatable {
    /// The web user id (`web-…`), on pi-relayd's allowlist while paired.
    var user: String
    /// Seconds since 1970.
    var expires: Double
}
