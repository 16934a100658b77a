/// A plugin's section as config.yaml has it, kept for the check against the schema the plugin
/// declares in its hello: errors then name the line and column as the loader's do.
package struct PluginSectionSource: Sendable, Equatable {
    package let field: ConfigField
    /// For `~` in paths.
    package let home: String?

    package static func == (left: Self, right: Self) -> Bool {
        left.field.path == right.field.path && left.field.file == right.field.file && left.field.node.mark == right.field.node.mark
            && left.home == right.home
    }
}
