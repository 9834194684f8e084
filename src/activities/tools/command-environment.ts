/**
 * Variables never passed to commands the model (or a hook) runs: the worker's own secrets.
 * Anything named like a credential is dropped too; users pass what a command needs explicitly.
 */
const SECRET_NAME = /^(ANTHROPIC_|TEMPORAL_|AGENT_)|API_KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL/i;

export function commandEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (!SECRET_NAME.test(name)) environment[name] = value;
  }
  // Commands run unattended: nothing may wait for a pager or an editor.
  environment.PAGER = 'cat';
  environment.GIT_PAGER = 'cat';
  environment.GIT_TERMINAL_PROMPT = '0';
  return environment;
}
