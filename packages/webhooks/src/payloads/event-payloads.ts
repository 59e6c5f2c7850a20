import type {
  WebhookEventAction,
  WebhookEventName,
  WebhookEventNameWithAction,
} from '../event-names/event-name-types.js';
import type {
  CheckRun,
  CheckSuite,
  Comment,
  Commit,
  CommitAuthor,
  Deployment,
  Enterprise,
  Hook,
  Installation,
  InstallationLite,
  Issue,
  Label,
  OpenFields,
  Organization,
  PullRequest,
  Release,
  Repository,
  RepositoryLite,
  Review,
  User,
  WorkflowJob,
  WorkflowRun,
} from './entities.js';

/** Fields any delivery may carry, depending on where the webhook is installed. */
export interface CommonPayloadFields extends OpenFields {
  sender?: User;
  repository?: Repository;
  organization?: Organization;
  installation?: InstallationLite;
  enterprise?: Enterprise;
}

/** Event-specific fields beyond the common ones, for the events people handle most. */
export interface EventPayloadFields {
  check_run: { check_run: CheckRun; requested_action?: { identifier: string } };
  check_suite: { check_suite: CheckSuite };
  commit_comment: { comment: Comment & { commit_id: string; path?: string | null } };
  create: {
    ref: string;
    ref_type: 'tag' | 'branch';
    master_branch: string;
    description: string | null;
    pusher_type: string;
  };
  delete: { ref: string; ref_type: 'tag' | 'branch'; pusher_type: string };
  deployment: { deployment: Deployment };
  deployment_status: {
    deployment: Deployment;
    deployment_status: OpenFields & { id: number; state: string; environment?: string };
  };
  fork: { forkee: Repository };
  installation: {
    installation: Installation;
    repositories?: RepositoryLite[];
    requester?: User | null;
  };
  installation_repositories: {
    installation: Installation;
    repository_selection: 'all' | 'selected';
    repositories_added: RepositoryLite[];
    repositories_removed: RepositoryLite[];
    requester?: User | null;
  };
  issue_comment: { issue: Issue; comment: Comment; changes?: OpenFields };
  issues: {
    issue: Issue;
    changes?: OpenFields;
    label?: Label;
    assignee?: User | null;
    milestone?: OpenFields;
  };
  label: { label: Label; changes?: OpenFields };
  ping: { zen: string; hook_id: number; hook: Hook };
  provider_app_authorization: { sender: User };
  pull_request: {
    number: number;
    pull_request: PullRequest;
    changes?: OpenFields;
    label?: Label;
    requested_reviewer?: User;
    before?: string;
    after?: string;
  };
  pull_request_review: { pull_request: PullRequest; review: Review; changes?: OpenFields };
  pull_request_review_comment: {
    pull_request: PullRequest;
    comment: Comment & { path: string; commit_id: string; pull_request_review_id?: number | null };
    changes?: OpenFields;
  };
  pull_request_review_thread: { pull_request: PullRequest; thread: OpenFields };
  push: {
    ref: string;
    before: string;
    after: string;
    created: boolean;
    deleted: boolean;
    forced: boolean;
    base_ref: string | null;
    compare: string;
    commits: Commit[];
    head_commit: Commit | null;
    pusher: CommitAuthor;
    repository: Repository;
  };
  release: { release: Release; changes?: OpenFields };
  repository: { repository: Repository; changes?: OpenFields };
  star: { starred_at: string | null; repository: Repository };
  status: {
    id: number;
    sha: string;
    name: string;
    state: 'pending' | 'success' | 'failure' | 'error';
    context: string;
    description: string | null;
    target_url: string | null;
    branches: OpenFields[];
  };
  watch: { repository: Repository };
  workflow_dispatch: { ref: string; workflow: string; inputs: Record<string, unknown> | null };
  workflow_job: { workflow_job: WorkflowJob };
  workflow_run: { workflow_run: WorkflowRun; workflow: OpenFields };
}

type FieldsOf<TEvent extends WebhookEventName> = TEvent extends keyof EventPayloadFields
  ? EventPayloadFields[TEvent]
  : unknown;

/**
 * The payload of one event, optionally narrowed to one action. Events with actions always carry
 * `action` as a literal union, e.g. `WebhookEventPayload<'star'>['action']` is
 * `'created' | 'deleted'`.
 */
export type WebhookEventPayload<
  TEvent extends WebhookEventName,
  TAction extends string = TEvent extends WebhookEventNameWithAction
    ? WebhookEventAction<TEvent>
    : never,
> = CommonPayloadFields &
  FieldsOf<TEvent> &
  ([TAction] extends [never] ? unknown : { action: TAction });
