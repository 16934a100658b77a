import PiRelaySDK
import Testing

/// The one rule for a session's files that must not leave the machine (the attachments plugin's
/// uploads, a viewer of the working tree), case-insensitive on every component.
@Suite struct SecretPatternTests {
    @Test(arguments: [
        ".env", "app/.env.local", ".SSH/config", "keys/ID_RSA", "certs/server.pem", "a/tls.key", "store.p12", ".git/config",
        "home/.netrc", ".aws/credentials", ".config/gcloud/token.json", ".kube/config", ".docker/config.json", "x/../.env",
        // What a session in $HOME (the default folder of `/new`) can name: pi-relayd's own home,
        // pi's API keys, the GitHub CLI's token, GnuPG, PuTTY and Vault keys.
        ".pi-relayd/state/plugins/web/sign-ins.json", ".pi-relayd/state/paired-users.json", ".pi/agent/auth.json",
        ".pi/agent/models.json", ".config/gh/hosts.yml", ".gnupg/secring.gpg", "keys/server.ppk", ".vault-token",
        // docker compose's env_file, under any name.
        "deploy/prod.env", "app.ENV",
        // Other coding agents' and tools' tokens, found beside pi on the same machine.
        ".claude/.credentials.json", ".codex/auth.json", ".config/github-copilot/apps.json", ".cargo/credentials.toml",
        ".cargo/credentials", ".gem/credentials", ".config/hub", ".terraform.d/credentials.tfrc.json", ".config/rclone/rclone.conf",
        ".my.cnf", ".s3cfg", ".yarnrc.yml", "infra/terraform.tfstate", "infra/terraform.tfstate.backup", "app/credentials.json",
        // What was typed at a shell or a database prompt, passwords included.
        ".bash_history", ".zsh_history", ".psql_history", ".mysql_history",
    ])
    func credentialsAreNamed(_ path: String) {
        #expect(SecretPattern.match(path) != nil, "\(path)")
    }

    @Test(arguments: [
        "README.md", "src/env.swift", "docs/keys.md", "config/app.yaml", "aws/credentials.md", "identity.txt", ".pi/settings.json",
        "pi-relayd/README.md", ".venv/bin/python", "src/environment.ts", "docs/credentials.md", ".config/nvim/init.lua", ".claude/settings.json",
        "history/README.md",
    ])
    func ordinaryFilesPass(_ path: String) {
        #expect(SecretPattern.match(path) == nil, "\(path)")
    }

    /// A session started where credentials live: its files are as secret as their names would be
    /// from one folder up.
    @Test(arguments: [
        ("credentials", "/home/me/.aws"), ("config", "/home/me/.kube"), ("authorized_keys", "/home/me/.ssh"),
        ("config", "/work/app/.git"), ("refs/heads/main", "/work/app/.git"), ("token.json", "/home/me/.config/gcloud"),
        ("gcloud/token.json", "/home/me/.config"), ("config.json", "/home/me/.docker"),
        ("state/paired-users.json", "/home/me/.pi-relayd"), ("auth.json", "/home/me/.pi/agent"), ("hosts.yml", "/home/me/.config/gh"),
        // Deeper in such a folder, as much in it.
        ("adc.json", "/home/me/.config/gcloud/legacy_credentials/me@example.com"), ("s.jsonl", "/home/me/.pi/agent/sessions/abc"),
    ])
    func filesOfACredentialsFolderAreNamed(_ path: String, _ folder: String) {
        #expect(SecretPattern.match(path, in: folder) != nil, "\(folder)/\(path)")
    }

    /// Only folder rules look at the folder: a project named like a key file is a project.
    @Test(arguments: [("README.md", "/work/id_service"), ("main.swift", "/work/keys.pem-tools"), ("config", "/home/me/project")])
    func filesOfAnOrdinaryFolderPass(_ path: String, _ folder: String) {
        #expect(SecretPattern.match(path, in: folder) == nil, "\(folder)/\(path)")
    }
}
