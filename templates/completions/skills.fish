
# Skill names, from the skills this agent finds where it is run.
complete -c agent -n "__fish_agent_needs_command" -l skill -x -a "(agent skills list 2>/dev/null | cut -f1)"
complete -c agent -n "__fish_seen_subcommand_from skills; and __fish_seen_subcommand_from show tune remove audit update verify" -x -a "(agent skills list 2>/dev/null | cut -f1)"
complete -c agent -n "__fish_seen_subcommand_from skills; and __fish_seen_subcommand_from eval" -l draft -x -a "(agent skills list 2>/dev/null | cut -f1)"
complete -c agent -n "__fish_seen_subcommand_from trust" -l skill -x -a "(agent skills list 2>/dev/null | cut -f1)"
