/// What a request is charged to before Discord names its bucket: the route template (method and
/// path with placeholders) and the major parameter's value (channel, guild, webhook+token or
/// interaction), because Discord counts every major parameter value separately.
struct RouteKey: Hashable, Sendable, CustomStringConvertible {
    var route: String
    var major: String

    var description: String { major.isEmpty ? route : "\(route) [\(major)]" }
}
