import MessengerKit
import PiRelaySDK

/// The `web:` section of config.yaml, checked once at start.
struct WebConfig: Sendable {
    var listen: ListenAddress
    /// Host names the browser may use besides 127.0.0.1, localhost and [::1] (against DNS
    /// rebinding: a page of another site that resolves its name to this machine is refused).
    var hosts: [String]
    /// PEM files; required unless `listen` is loopback.
    var tlsCertificate: String?
    var tlsKey: String?
    /// Configured web user ids (paired browsers are added by pi-relayd).
    var allowedUsers: Set<String>
    /// Folders under which the dashboard may start a session; by default the one where `/new`
    /// starts them (`sessions.defaultCwd`, else `$HOME`).
    var roots: [String]

    var usesTLS: Bool { tlsCertificate != nil }

    /// The name links use: the listen address when it is loopback, else the first of `hosts`.
    var linkHost: String { listen.isLoopback ? listen.host : hosts.first ?? listen.host }

    /// Throws `PluginExit.notConfigured` (exit 78) with a message that says what to fix.
    /// `newSessionFolder` is the welcome's: the default root.
    static func load(_ config: JSONValue, newSessionFolder: String? = nil) throws -> WebConfig {
        let config = try MessengerSection(config, name: "web")
        var listen = ListenAddress.default
        if let text = try config.string("listen") {
            guard let address = ListenAddress(text) else {
                throw problem("web.listen \"\(text)\" is not HOST:PORT (127.0.0.1:7780, or [::1]:7780 for IPv6)")
            }
            listen = address
        }
        var hosts: [String] = []
        if let list = config["hosts"], !list.isNull {
            guard let items = list.arrayValue else { throw problem("web.hosts must be a list of host names") }
            for (index, item) in items.enumerated() {
                guard let name = item.stringValue?.trimmed().lowercased(), !name.isEmpty, !name.contains("/"), !name.contains(" ") else {
                    throw problem("web.hosts[\(index)] must be a host name such as dash.example.net")
                }
                hosts.append(name)
            }
        }
        let certificate = try config.string("certificate", within: config["tls"] ?? .null)
        let key = try config.string("key", within: config["tls"] ?? .null)
        guard (certificate == nil) == (key == nil) else { throw problem("web.tls needs both certificate and key (PEM files)") }
        if !listen.isLoopback && certificate == nil {
            throw problem(
                "web.listen \(listen.host) is reachable from other machines, so it needs web.tls.certificate and web.tls.key; or keep 127.0.0.1 and use ssh -L (docs/SECURITY.md)"
            )
        }
        if !listen.isLoopback && hosts.isEmpty {
            throw problem("web.listen \(listen.host) needs web.hosts: the names browsers use to reach this machine (the first one goes in links)")
        }
        var allowed = Set<String>()
        if let list = config["allowedUsers"], !list.isNull {
            guard let items = list.arrayValue else { throw problem("web.allowedUsers must be a list of web user ids") }
            for item in items { if let id = item.stringValue, !id.isEmpty { allowed.insert(id) } }
        }
        var roots: [String] = []
        if let list = config["roots"], !list.isNull {
            guard let items = list.arrayValue else { throw problem("web.roots must be a list of folders") }
            for (index, item) in items.enumerated() {
                guard let path = item.stringValue, path.hasPrefix("/") || path.hasPrefix("~/") else {
                    throw problem("web.roots[\(index)] must be an absolute folder (or start with ~/)")
                }
                roots.append(path.expandingTilde)
            }
        } else {
            roots = [newSessionFolder ?? UserFolders.home]
        }
        return WebConfig(listen: listen, hosts: hosts, tlsCertificate: certificate, tlsKey: key, allowedUsers: allowed, roots: roots)
    }

    private static func problem(_ text: String) -> PluginExit { MessengerSection.problem(text) }
}
