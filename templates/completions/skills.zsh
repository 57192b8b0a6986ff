# Skill names, from the skills this agent finds where it is run (`agent skills list`, piped: the
# name is the first tab-separated field).
(( $+functions[_agent_skill_names] )) ||
_agent_skill_names() {
    local -a names
    names=(${(f)"$(${words[1]:-agent} skills list 2>/dev/null | cut -f1)"})
    compadd -a names
}
