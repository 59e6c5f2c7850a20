// Shapes of the objects that recur in payloads. The spec leaves payload fields open, so each type
// lists the fields people read most and keeps an index signature: unknown fields stay reachable
// (as `unknown`) instead of being a type error.

/** Fields not listed in a payload type are still present at run time; read them as `unknown`. */
export interface OpenFields {
  [field: string]: unknown;
}

export interface User extends OpenFields {
  login: string;
  id: number;
  node_id?: string;
  avatar_url?: string;
  html_url?: string;
  type?: 'User' | 'Organization' | 'Bot' | (string & Record<never, never>);
  site_admin?: boolean;
}

export interface Organization extends OpenFields {
  login: string;
  id: number;
  node_id?: string;
  url?: string;
  description?: string | null;
}

export interface Enterprise extends OpenFields {
  id: number;
  slug?: string;
  name: string;
}

/** The short installation object most payloads carry when delivered to an app. */
export interface InstallationLite extends OpenFields {
  id: number;
  node_id?: string;
}

export interface Installation extends InstallationLite {
  account: User | Organization | null;
  app_id?: number;
  target_type?: string;
  repository_selection?: 'all' | 'selected';
  permissions?: Record<string, string>;
  events?: string[];
  suspended_at?: string | null;
}

export interface Repository extends OpenFields {
  id: number;
  node_id?: string;
  name: string;
  full_name: string;
  private: boolean;
  owner: User;
  html_url?: string;
  description?: string | null;
  fork?: boolean;
  default_branch?: string;
  archived?: boolean;
  visibility?: 'public' | 'private' | 'internal';
}

/** Repositories as listed in installation payloads. */
export interface RepositoryLite extends OpenFields {
  id: number;
  node_id?: string;
  name: string;
  full_name: string;
  private: boolean;
}

export interface Label extends OpenFields {
  id: number;
  name: string;
  color: string;
  description?: string | null;
  default?: boolean;
}

export interface Milestone extends OpenFields {
  id: number;
  number: number;
  title: string;
  state: 'open' | 'closed';
}

export interface Issue extends OpenFields {
  id: number;
  node_id?: string;
  number: number;
  title: string;
  body?: string | null;
  state?: 'open' | 'closed';
  state_reason?: string | null;
  user: User | null;
  labels?: Label[];
  assignees?: User[];
  milestone?: Milestone | null;
  html_url?: string;
  created_at?: string;
  updated_at?: string;
  closed_at?: string | null;
  pull_request?: OpenFields;
}

export interface Comment extends OpenFields {
  id: number;
  node_id?: string;
  body: string;
  user: User | null;
  html_url?: string;
  created_at?: string;
  updated_at?: string;
}

export interface GitRef extends OpenFields {
  label?: string;
  ref: string;
  sha: string;
  repo?: Repository | null;
  user?: User | null;
}

export interface PullRequest extends OpenFields {
  id: number;
  node_id?: string;
  number: number;
  title: string;
  body?: string | null;
  state: 'open' | 'closed';
  draft?: boolean;
  merged?: boolean | null;
  merged_at?: string | null;
  user: User | null;
  head: GitRef;
  base: GitRef;
  html_url?: string;
  labels?: Label[];
}

export interface Review extends OpenFields {
  id: number;
  body?: string | null;
  state: string;
  user: User | null;
  commit_id?: string;
  submitted_at?: string | null;
}

export interface CommitAuthor extends OpenFields {
  name: string;
  email: string | null;
  username?: string;
  date?: string;
}

export interface Commit extends OpenFields {
  id: string;
  tree_id?: string;
  distinct?: boolean;
  message: string;
  timestamp: string;
  url?: string;
  author: CommitAuthor;
  committer: CommitAuthor;
  added?: string[];
  removed?: string[];
  modified?: string[];
}

export interface Release extends OpenFields {
  id: number;
  tag_name: string;
  target_commitish?: string;
  name: string | null;
  body?: string | null;
  draft: boolean;
  prerelease: boolean;
  author?: User;
  html_url?: string;
}

export interface Hook extends OpenFields {
  id: number;
  type?: string;
  name?: string;
  active: boolean;
  events: string[];
  config: OpenFields & { content_type?: string; url?: string; insecure_ssl?: string };
}

export interface CheckSuite extends OpenFields {
  id: number;
  head_branch: string | null;
  head_sha: string;
  status: string | null;
  conclusion: string | null;
}

export interface CheckRun extends OpenFields {
  id: number;
  name: string;
  head_sha: string;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  conclusion: string | null;
  check_suite?: CheckSuite;
}

export interface WorkflowRun extends OpenFields {
  id: number;
  name?: string | null;
  head_branch: string | null;
  head_sha: string;
  run_number: number;
  event: string;
  status: string | null;
  conclusion: string | null;
  workflow_id: number;
  html_url?: string;
}

export interface WorkflowJob extends OpenFields {
  id: number;
  run_id: number;
  name: string;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting';
  conclusion: string | null;
  labels?: string[];
  runner_name?: string | null;
}

export interface Deployment extends OpenFields {
  id: number;
  sha: string;
  ref: string;
  environment: string;
  task?: string;
  creator?: User | null;
}
