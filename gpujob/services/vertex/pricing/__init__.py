"""What a Vertex AI job costs: the price table (``prices``, ``price-table/`` beside it), the
estimate of a job's hourly and worst-case cost (``cost``), the caps --max-hourly-cost and
--max-cost set (``cost_cap``), how validate reports a cost (``cost_report``), and what a job
has spent so far (``cost_spent``). Each module is imported when first needed."""
