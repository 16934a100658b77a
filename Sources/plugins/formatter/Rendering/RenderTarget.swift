/// Where a rendered document goes: chat messages get tables as code blocks, a `.md` file keeps
/// them as markdown tables, which file viewers render.
enum RenderTarget {
    case chat
    case file
}
