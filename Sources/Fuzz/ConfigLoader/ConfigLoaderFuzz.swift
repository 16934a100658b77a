import FuzzDriver
import Supervisor

/// config.yaml and .env through `ConfigLoader.load` (libyaml, the tree builder, every section's
/// checks, the .env parser), from memory: the first byte picks the files' modes, then comes
/// config.yaml, then, after a NUL byte, .env.
///
/// Beyond not crashing: a token planted in the input or the environment must not come back in
/// any error, warning or note, as long as it appears only whole (a fragment is not a secret).
enum ConfigLoaderFuzz {
    static let marker = "Zq9xSECRETv4lue"
    static let token = "MTIzNDU2.\(marker).abc_DEF-123"
    static let home = "/fuzz-home"

    static func test(_ input: FuzzInput) {
        var input = input
        let flags = input.byte()
        let rest = input.rest()
        let split = rest.firstIndex(of: 0) ?? rest.endIndex
        let yaml = Array(rest[..<split])
        let dotenv = split < rest.endIndex ? Array(rest[(split + 1)...]) : nil
        let files: [String: ConfigFile] = [
            home + "/config.yaml": ConfigFile(
                path: home + "/config.yaml", bytes: yaml,
                permissions: flags & 1 == 0 ? 0o600 : 0o644, owner: 1000)
        ].merging(
            dotenv.map {
                [
                    home + "/.env": ConfigFile(
                        path: home + "/.env", bytes: $0,
                        permissions: flags & 2 == 0 ? 0o600 : 0o640, owner: 1000)
                ]
            } ?? [:]
        ) { a, _ in a }
        let fileSystem = ConfigFileSystem(readFile: { path throws(ConfigError) in files[path] }, userID: 1000)
        var environment = ["HOME": "/h"]
        if flags & 4 != 0 { environment["DISCORD_BOT_TOKEN"] = token }

        var texts: [String]
        do {
            let loaded = try ConfigLoader.load(
                home: home, knownPlugins: ["discord", "fuzzplug"],
                environment: environment, fileSystem: fileSystem)
            texts = loaded.warnings + loaded.notConfigured
        } catch {
            texts = [error.description]
        }

        let text = String(decoding: rest, as: UTF8.self)
        let planted = text.components(separatedBy: marker).count - 1
        guard planted == text.components(separatedBy: token).count - 1 else { return }
        for message in texts {
            FuzzDriver.require(!message.contains(marker), "a planted token leaked: \(message)")
        }
    }
}
