
# Skill names, from the skills this agent finds where it is run: after `--skill`, and after
# `skills show`, `tune`, `remove`, `audit`, `update`, `verify` and `skills eval --draft`.
# Everything else is clap's completion.
_agent_skill_names() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" i in_skills=0 adding=0
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            skills) in_skills=1 ;;
            add) adding=1 ;;
        esac
    done
    if [[ $adding == 0 && ( "$prev" == --skill || ( $in_skills == 1 && "$prev" =~ ^(show|tune|--draft|remove|audit|update|verify)$ ) ) ]]; then
        local IFS=$'\n'
        COMPREPLY=( $(compgen -W "$("${COMP_WORDS[0]}" skills list 2>/dev/null | cut -f1)" -- "$cur") )
        return 0
    fi
    _agent "$@"
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _agent_skill_names -o nosort -o bashdefault -o default agent
else
    complete -F _agent_skill_names -o bashdefault -o default agent
fi
