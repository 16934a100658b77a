import Foundation
import PiRelaySDK

@testable import Supervisor

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throw-away pi-relayd home directory for loader tests.
final class ConfigTestHome {
    let path: String

    init() {
        var template = Array((URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pi-relayd-config-test-XXXXXX").path).utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    var configPath: String { path + "/config.yaml" }
    var dotenvPath: String { path + "/.env" }

    /// Writes a file in the home with exactly `mode` (the umask does not apply).
    @discardableResult
    func write(_ name: String, _ text: String, mode: UInt32 = 0o600) -> String {
        let file = path + "/" + name
        precondition(FileManager.default.createFile(atPath: file, contents: Data(text.utf8)), "cannot write \(file)")
        precondition(chmod(file, mode_t(mode)) == 0, "cannot chmod \(file)")
        return file
    }

    /// Loads the home's config as the daemon does, then checks each bundled plugin's section
    /// (those known or present, and not disabled) against the schema its hello declares, as the daemon does at the
    /// plugin's hello: the sections become what the plugins get, and their warnings and notes join
    /// the loader's.
    func load(
        knownPlugins: Set<String> = [], environment: [String: String] = ["HOME": "/home/me"],
        fileSystem: ConfigFileSystem = .live
    ) throws(ConfigError) -> LoadedConfig {
        var loaded = try ConfigLoader.load(home: path, knownPlugins: knownPlugins, environment: environment, fileSystem: fileSystem)
        let children = environment.merging(loaded.dotenv) { ours, _ in ours }
        for (name, hello) in BundledHellos.byName.sorted(by: { $0.key < $1.key })
        where (knownPlugins.contains(name) || loaded.config.pluginSources[name] != nil) && !loaded.config.plugins.disabled.contains(name) {
            let checked = try PluginSections.check(
                source: loaded.config.pluginSources[name], written: loaded.config.pluginSections[name], plugin: name, hello: hello,
                environment: children)
            if loaded.config.pluginSections[name] != nil { loaded.config.pluginSections[name] = checked.section }
            loaded.warnings += checked.warnings
            loaded.notConfigured += checked.notes
        }
        return loaded
    }

    /// Writes config.yaml (mode 0600) and loads it.
    func load(
        yaml: String, knownPlugins: Set<String> = [],
        environment: [String: String] = ["HOME": "/home/me"]
    ) throws(ConfigError) -> LoadedConfig {
        write("config.yaml", yaml)
        return try load(knownPlugins: knownPlugins, environment: environment)
    }

    /// The error loading fails with, or nil if it succeeds.
    func loadError(
        knownPlugins: Set<String> = [], environment: [String: String] = ["HOME": "/home/me"],
        fileSystem: ConfigFileSystem = .live
    ) -> ConfigError? {
        do {
            _ = try load(knownPlugins: knownPlugins, environment: environment, fileSystem: fileSystem)
            return nil
        } catch {
            return error
        }
    }

    func loadError(yaml: String, knownPlugins: Set<String> = []) -> ConfigError? {
        write("config.yaml", yaml)
        return loadError(knownPlugins: knownPlugins)
    }
}

/// Parses YAML text, returning the failure instead of throwing it.
func parseYAML(_ text: String) -> Result<YAMLNode?, YAMLReader.Failure> {
    do {
        return .success(try YAMLReader.parse(Array(text.utf8)))
    } catch {
        return .failure(error)
    }
}
