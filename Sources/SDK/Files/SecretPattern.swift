/// Path components that look like credentials. Matching is case-insensitive on every component,
/// so `.ENV`, `ID_RSA` or `.SSH/` on a case-insensitive file system are caught as well. The one
/// rule for every plugin that shows or sends a session's files: the attachments plugin refuses to
/// upload them, and a viewer of a session's working tree hides them.
public enum SecretPattern {
    /// Why `path` (relative to the session's folder) must not leave the machine, or nil when it
    /// looks harmless.
    public static func match(_ path: String) -> String? {
        let parts = path.split(separator: "/").map { $0.lowercased() }.filter { $0 != "." && $0 != ".." }
        for (index, part) in parts.enumerated() {
            if let why = single(part) { return why }
            if index + 1 < parts.count, let why = pair(part, parts[index + 1]) { return why }
        }
        return nil
    }

    /// As `match`, for `path` inside `folder` (a session's folder, resolved): a folder that is
    /// itself where credentials live (a session started in `~/.ssh`, `~/.aws`, or inside a
    /// repository's `.git`) makes its files secret too. Only folder rules look at `folder`: a
    /// project folder named like a key file (`id_service`) is a folder, not a key.
    public static func match(_ path: String, in folder: String) -> String? {
        if let why = match(path) { return why }
        let around = folder.split(separator: "/").map { $0.lowercased() }
        for component in around where [".ssh", ".git", ".azure", ".gnupg", ".pi-relayd"].contains(component) { return single(component) }
        if let last = around.last, let first = path.split(separator: "/").first(where: { $0 != "." }) {
            if let why = pair(last, first.lowercased()) { return why }
        }
        // Any depth: a session in `~/.config/gcloud/legacy_credentials/ME` is as much in gcloud's.
        for index in around.indices.dropLast() {
            if let why = pair(around[index], around[index + 1]) { return why }
        }
        return nil
    }

    private static func single(_ component: String) -> String? {
        // `prod.env`, `app.env`: docker compose's env_file, named as the owner likes.
        if component.hasPrefix(".env") || component.hasSuffix(".env") {
            return "`\(component)` looks like an environment file with secrets"
        }
        if component == ".ssh" { return "files in `.ssh` are SSH keys and settings" }
        if component.hasPrefix("id_") { return "`\(component)` looks like an SSH private key" }
        // .pfx is the same PKCS#12 container as .p12; .jks/.keystore are Java key stores.
        // .ppk is PuTTY's private key.
        for ext in [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk"] where component.hasSuffix(ext) {
            return "`\(component)` looks like a key or certificate file"
        }
        if component == ".git" { return "files inside `.git` are repository internals (they can hold credentials)" }
        if [
            ".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".vault-token", ".my.cnf", ".s3cfg", ".yarnrc.yml",
            // Google's OAuth client secrets and service accounts, by convention.
            "credentials.json",
        ].contains(component) {
            return "`\(component)` holds login credentials"
        }
        // Terraform keeps every resource's secrets in its state, in plain text.
        if component.hasSuffix(".tfstate") || component.hasSuffix(".tfstate.backup") {
            return "`\(component)` is Terraform state (it holds the resources' secrets)"
        }
        // What was typed at a shell or a database prompt: passwords given on a command line too.
        if component.hasPrefix("."), component.hasSuffix("_history") { return "`\(component)` is a command history" }
        if component == ".azure" { return "files in `.azure` are Azure credentials" }
        if component == ".gnupg" { return "files in `.gnupg` are GnuPG keys" }
        // A session in $HOME (the default folder of `/new`) sees pi-relayd's own home: bot
        // tokens in .env, the dashboard's sign-ins, the paired users.
        if component == ".pi-relayd" { return "files in `.pi-relayd` are pi-relayd's tokens and sign-ins" }
        return nil
    }

    private static func pair(_ dir: String, _ name: String) -> String? {
        switch (dir, name) {
        case (".aws", "credentials"): return "`.aws/credentials` holds AWS keys"
        case (".config", "gcloud"): return "files in `.config/gcloud` are Google Cloud credentials"
        case (".kube", "config"): return "`.kube/config` holds Kubernetes credentials"
        case (".docker", "config.json"): return "`.docker/config.json` holds registry credentials"
        case (".config", "gh"): return "files in `.config/gh` are GitHub CLI tokens"
        case (".config", "github-copilot"): return "files in `.config/github-copilot` are GitHub Copilot tokens"
        case (".config", "hub"): return "`.config/hub` holds a GitHub token"
        case (".config", "rclone"): return "files in `.config/rclone` hold cloud storage tokens"
        // Other coding agents' sign-ins, found beside pi on the same machine.
        case (".claude", ".credentials.json"): return "`.claude/.credentials.json` holds Claude Code's sign-in"
        case (".codex", "auth.json"): return "`.codex/auth.json` holds Codex's sign-in"
        case (".cargo", "credentials"), (".cargo", "credentials.toml"): return "`.cargo/\(name)` holds a crates.io token"
        case (".gem", "credentials"): return "`.gem/credentials` holds a RubyGems key"
        case (".terraform.d", "credentials.tfrc.json"): return "`.terraform.d/credentials.tfrc.json` holds Terraform Cloud tokens"
        // pi's own folder: auth.json and models.json hold its API keys.
        case (".pi", "agent"): return "files in `.pi/agent` are pi's API keys and sessions"
        default: return nil
        }
    }
}
