/// docs/slack-app-manifest.yaml, which `pi-relayd setup slack` prints: an installed pi-relayd has
/// no docs folder. SlackManifestTests keeps the two the same.
enum SlackAppManifest {
    static let yaml = """
        # The Slack app for pi-relayd. At https://api.slack.com/apps: Create New App → From a manifest →
        # pick the workspace → paste this → Create → Install to Workspace. Then Basic Information →
        # App-Level Tokens → Generate Token with the scope connections:write (the xapp-… token; it is not
        # part of a manifest). `pi-relayd setup slack` prints this file and checks both tokens.
        _metadata:
          major_version: 1
          minor_version: 1
        display_information:
          name: pi-relay
          description: Drive pi coding-agent sessions from Slack
        features:
          app_home:
            home_tab_enabled: false
            # Without it nobody can DM the bot.
            messages_tab_enabled: true
            messages_tab_read_only_enabled: false
          bot_user:
            display_name: pi-relay
            always_online: true
          slash_commands:
            - command: /pi
              description: Talk to pi sessions
              usage_hint: "sessions | use NAME | new DIR [NAME] | stop | status | help"
              should_escape: false
        oauth_config:
          scopes:
            bot:
              - chat:write
              - im:history
              - im:read
              - im:write
              - app_mentions:read
              - channels:history
              - groups:history
              - files:read
              - files:write
              - commands
              - users:read
              - reactions:write
        settings:
          event_subscriptions:
            bot_events:
              - message.im
              - app_mention
              - message.channels
              - message.groups
          interactivity:
            is_enabled: true
          org_deploy_enabled: false
          socket_mode_enabled: true
          token_rotation_enabled: false
        """

    /// What someone about to be asked for Slack's tokens reads first.
    static let instructions = """
        Slack needs an app with Socket Mode. At https://api.slack.com/apps: Create New App → From a manifest →
        your workspace → paste the manifest below → Create → Install to Workspace. The bot token (xoxb-…) is
        under OAuth & Permissions; for the app-level token (xapp-…) go to Basic Information → App-Level Tokens →
        Generate Token with the scope connections:write.

        """ + yaml + "\n"
}
