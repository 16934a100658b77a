extension WebAssets {
    /// The one style sheet: light and dark, and a narrow layout for phones.
    static let style = #"""
        :root { color-scheme: light dark; --line: #8884; --accent: #2f6feb; font-family: system-ui, sans-serif; }
        body { margin: 0; }
        header { display: flex; gap: 1em; align-items: center; padding: .5em 1em; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
        header form { margin: 0; }
        .home { font-weight: bold; text-decoration: none; }
        .link { font-size: .85em; opacity: .7; }
        main { padding: 1em; max-width: 60em; margin: 0 auto; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .35em .5em; border-bottom: 1px solid var(--line); vertical-align: top; }
        td.cwd { font-family: ui-monospace, monospace; font-size: .85em; word-break: break-all; }
        .state-busy { color: #b7791f; } .state-exited { opacity: .6; } .waiting { color: #c53030; font-weight: bold; }
        .item { border-bottom: 1px solid var(--line); padding: .6em 0; white-space: pre-wrap; overflow-wrap: anywhere; }
        .item.echo, .item.reply { opacity: .8; font-size: .95em; }
        .live { border-left: 3px solid var(--accent); padding-left: .6em; white-space: pre-wrap; overflow-wrap: anywhere; }
        pre, code { font-family: ui-monospace, monospace; }
        pre { background: #8881; padding: .5em; overflow-x: auto; }
        .question { border: 1px solid var(--accent); border-radius: 6px; padding: .6em; white-space: normal; }
        .question.closed { border-color: var(--line); }
        .closed-note { font-style: italic; }
        .actions button, .question button { margin: .2em .3em .2em 0; }
        #composer { position: sticky; bottom: 0; background: Canvas; padding: .5em 0; display: grid; gap: .4em; }
        #composer textarea { width: 100%; min-height: 4em; box-sizing: border-box; font: inherit; }
        .note { font-size: .9em; opacity: .8; }
        .controls { display: flex; gap: .4em; flex-wrap: wrap; margin: .5em 0; }
        .branch, .elapsed { font-size: .85em; opacity: .75; }
        .diff div, .side td { font-family: ui-monospace, monospace; font-size: .85em; white-space: pre-wrap; overflow-wrap: anywhere; }
        .add { color: #1a7f37; } .del { color: #cf222e; } .diff .add { background: #1a7f3715; } .diff .del { background: #cf222e15; }
        .side { table-layout: fixed; } .side td.add { background: #1a7f3715; } .side td.del { background: #cf222e15; } .side td.empty { background: #8881; }
        details.file { margin: .5em 0; border: 1px solid var(--line); border-radius: 4px; padding: .3em; }
        @media (max-width: 40em) { td.cwd, th.cwd, td.model, th.model { display: none; } main { padding: .5em; } }
        """#
}
