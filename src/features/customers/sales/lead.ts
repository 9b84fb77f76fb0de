/** The sales pipeline, in its order; `won` and `lost` end it (a lead may still be moved back). */
export const LEAD_STAGES = ['new', 'contacted', 'qualified', 'proposal', 'won', 'lost'] as const;
export type LeadStage = (typeof LEAD_STAGES)[number];

/** What a client writes: the whole lead (full-state PUT; an absent optional field becomes null). */
export interface LeadValues {
  readonly name: string;
  readonly company: string | null;
  readonly email: string | null;
  readonly stage: LeadStage;
}

/**
 * The Customer as sales sees it: a lead and where it stands in the pipeline. `stageSince` is when it
 * entered its stage (set by the server; moves only when the stage changes); `version` is 1 when
 * created and one more per accepted PUT.
 */
export interface Lead extends LeadValues {
  readonly customerId: string;
  readonly stageSince: string;
  readonly version: number;
}
