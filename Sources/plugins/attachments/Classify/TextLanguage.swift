/// The info string for a text attachment's code fence, from its name. Only a label for the model
/// and for syntax highlighting: whether a file is text at all is decided by its content.
enum TextLanguage {
    static func forFile(named name: String) -> String {
        let lower = name.lowercased()
        if let special = specialNames[lower] { return special }
        guard let dot = lower.lastIndex(of: "."), dot != lower.startIndex else { return "" }
        return byExtension[String(lower[lower.index(after: dot)...])] ?? ""
    }

    /// True for names that are known source, config or markup files.
    static func isKnownText(_ name: String) -> Bool { !forFile(named: name).isEmpty }

    private static let specialNames: [String: String] = [
        "dockerfile": "dockerfile", "containerfile": "dockerfile", "makefile": "makefile",
        "gnumakefile": "makefile", "cmakelists.txt": "cmake", "gemfile": "ruby", "rakefile": "ruby",
        "podfile": "ruby", "vagrantfile": "ruby", "jenkinsfile": "groovy", "procfile": "text",
        "justfile": "just", ".gitignore": "gitignore", ".gitattributes": "gitattributes",
        ".editorconfig": "ini", ".bashrc": "bash", ".zshrc": "zsh", ".profile": "sh",
        "package.swift": "swift", "go.mod": "go", "go.sum": "text", "cargo.lock": "toml",
    ]

    private static let byExtension: [String: String] = {
        let groups: [(String, [String])] = [
            ("swift", ["swift"]), ("c", ["c", "h"]),
            ("cpp", ["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp", "inl"]),
            ("objectivec", ["m"]), ("objectivecpp", ["mm"]), ("rust", ["rs"]), ("go", ["go"]),
            ("python", ["py", "pyi", "pyw"]), ("ruby", ["rb", "rake", "gemspec"]),
            ("javascript", ["js", "mjs", "cjs"]), ("jsx", ["jsx"]), ("typescript", ["ts", "mts", "cts"]),
            ("tsx", ["tsx"]), ("java", ["java"]), ("kotlin", ["kt", "kts"]), ("scala", ["scala", "sc"]),
            ("groovy", ["groovy", "gradle"]), ("csharp", ["cs", "csx"]), ("fsharp", ["fs", "fsi", "fsx"]),
            ("vbnet", ["vb"]), ("php", ["php"]), ("perl", ["pl", "pm"]), ("lua", ["lua"]), ("r", ["r"]),
            ("julia", ["jl"]), ("dart", ["dart"]), ("elixir", ["ex", "exs"]), ("erlang", ["erl", "hrl"]),
            ("haskell", ["hs", "lhs"]), ("ocaml", ["ml", "mli"]), ("clojure", ["clj", "cljs", "cljc", "edn"]),
            ("lisp", ["lisp", "cl"]), ("scheme", ["scm", "ss", "rkt"]), ("elisp", ["el"]), ("nim", ["nim"]),
            ("zig", ["zig"]), ("d", ["d"]), ("v", ["v", "sv", "svh"]), ("vhdl", ["vhd", "vhdl"]),
            ("fortran", ["f", "f90", "f95", "for"]), ("pascal", ["pas"]), ("asm", ["s", "asm"]),
            ("bash", ["sh", "bash"]), ("zsh", ["zsh"]), ("fish", ["fish"]), ("powershell", ["ps1", "psm1"]),
            ("bat", ["bat", "cmd"]), ("sql", ["sql"]), ("graphql", ["graphql", "gql"]), ("proto", ["proto"]),
            ("thrift", ["thrift"]), ("html", ["html", "htm", "xhtml"]),
            ("xml", ["xml", "xsd", "xsl", "xslt", "plist", "csproj", "fsproj", "vbproj", "pom", "storyboard", "xib"]),
            ("css", ["css"]), ("scss", ["scss"]), ("sass", ["sass"]), ("less", ["less"]), ("vue", ["vue"]),
            ("svelte", ["svelte"]), ("astro", ["astro"]), ("json", ["json", "jsonc", "json5", "geojson", "ipynb"]),
            ("jsonl", ["jsonl", "ndjson"]), ("yaml", ["yaml", "yml"]), ("toml", ["toml"]),
            ("ini", ["ini", "cfg", "conf", "properties", "desktop", "service"]), ("dotenv", ["env"]),
            ("markdown", ["md", "markdown", "mdx"]), ("rst", ["rst"]), ("asciidoc", ["adoc", "asciidoc"]),
            ("org", ["org"]), ("latex", ["tex", "sty", "cls", "bib"]), ("text", ["txt", "text", "log", "out"]),
            ("csv", ["csv"]), ("tsv", ["tsv"]), ("diff", ["diff", "patch"]), ("dockerfile", ["dockerfile"]),
            ("makefile", ["mk", "mak"]), ("cmake", ["cmake"]), ("nix", ["nix"]), ("hcl", ["tf", "tfvars", "hcl"]),
            ("bazel", ["bzl", "bazel"]), ("starlark", ["star"]), ("ninja", ["ninja"]),
            ("glsl", ["glsl", "vert", "frag"]), ("hlsl", ["hlsl"]), ("metal", ["metal"]), ("cuda", ["cu", "cuh"]),
            ("solidity", ["sol"]), ("prisma", ["prisma"]), ("handlebars", ["hbs", "handlebars"]),
            ("jinja", ["j2", "jinja", "jinja2"]), ("twig", ["twig"]), ("erb", ["erb"]), ("haml", ["haml"]),
            ("pug", ["pug"]), ("tcl", ["tcl"]), ("awk", ["awk"]), ("sed", ["sed"]), ("vim", ["vim"]),
            ("applescript", ["applescript"]), ("crystal", ["cr"]), ("gleam", ["gleam"]),
            ("elm", ["elm"]), ("purescript", ["purs"]), ("reason", ["re", "rei"]), ("coffeescript", ["coffee"]),
            ("http", ["http"]), ("gitignore", ["gitignore"]), ("srt", ["srt", "vtt"]),
        ]
        var map: [String: String] = [:]
        for (language, extensions) in groups {
            for ext in extensions { map[ext] = language }
        }
        return map
    }()
}
